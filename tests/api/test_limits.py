"""Every limit of docs/api.md's list, on the app as ``scopa serve`` builds it, on SQLite and on
Postgres: each answers 429 (a stream: 200 with only ``retry:``) with Retry-After, lets
through again once that is over, and holds across two processes sharing one database.

The limits' clock is injected: a window's end is reached by moving it, not by waiting.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from scopa.api.app import ScopaApp
from scopa.infra.db import make_engine
from scopa.infra.settings import QUOTAS, Settings
from scopa.wiring import build_app
from tests.api.support import (
    FIXED_MATCH,
    Client,
    bearer,
    create,
    problem_type,
    started,
    tokens,
)
from tests.support.eventually import eventually

WAITING = {"seats": [{"kind": "human"}, {"kind": "open"}]}
OPEN_SEATS = {"seats": [{"kind": "open"}, {"kind": "open"}, {"kind": "human"}, {"kind": "open"}]}


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0  # a window's start: nothing ends during a test by itself

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@asynccontextmanager
async def serving(database_url: str, clock: Clock, **limits: Any) -> AsyncIterator[ScopaApp]:
    """One server process (start-up and shut-down hooks run) with every limit off but
    ``limits``."""
    settings = Settings(database_url=database_url, ai_workers=0, stream_seconds=2)
    app = build_app(dataclasses.replace(settings.without_limits(), **limits), clock=clock)
    async with started(app):
        yield app


@asynccontextmanager
async def client_of(app: ScopaApp, address: str = "127.0.0.1") -> AsyncIterator[Client]:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


def refused(answer: httpx.Response) -> int:
    """The Retry-After of a 429 rate-limited answer."""
    assert answer.status_code == 429, answer.text
    assert problem_type(answer) == "rate-limited"
    seconds = int(answer.headers["retry-after"])
    assert seconds >= 1
    return seconds


async def test_creations_per_minute(database_url: str, clock: Clock) -> None:
    async with serving(database_url, clock, rate_limit=2) as app, client_of(app) as client:
        await create(client)
        await create(client)
        answer = await client.post("/v1/matches", json=FIXED_MATCH)
        wait = refused(answer)
        assert 1 <= wait <= 60
        assert answer.headers["ratelimit"] == f'"create";r=0;t={wait}'
        assert answer.json()["detail"] == (
            f"over the limit of 2 matches created from this address a minute; retry in {wait} s"
        )
        clock.now += wait - 1
        refused(await client.post("/v1/matches", json=FIXED_MATCH))
        clock.now += 1
        made = await create(client)
        assert made["match"]["status"] == "active"


async def test_joins_per_minute(database_url: str, clock: Clock) -> None:
    async with serving(database_url, clock, joins_per_minute=2) as app, client_of(app) as client:
        match_id = (await create(client, OPEN_SEATS))["match"]["id"]
        join = f"/v1/matches/{match_id}/seats/{{}}/join"
        assert (await client.post(join.format(0))).status_code == 200
        taken = await client.post(join.format(0))
        assert taken.status_code == 409  # refused by the match, counted all the same
        assert taken.headers["ratelimit"].startswith('"joins";r=0;')
        wait = refused(await client.post(join.format(1)))
        clock.now += wait
        assert (await client.post(join.format(1))).status_code == 200


async def test_hints_per_token_and_per_address(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, hints_per_minute=2, hints_per_address_per_minute=3) as app,
        client_of(app) as client,
    ):
        first, second = [await create(client) for _ in range(2)]

        async def hint(created: Any) -> httpx.Response:
            # Seat 1 is to play first in the fixed match.
            return await client.get(
                f"/v1/matches/{created['match']['id']}/hint?level=easy",
                headers=bearer(tokens(created)[1]),
            )

        for _ in range(2):
            answer = await hint(first)
            assert answer.status_code == 200, answer.text
        over_token = await hint(first)
        refused(over_token)
        assert '"hints";r=0' in over_token.headers["ratelimit"]
        assert (await hint(second)).status_code == 200  # another token: a count of its own
        over_address = await hint(second)  # the address's fourth
        refused(over_address)
        assert '"hints-per-address";r=0' in over_address.headers["ratelimit"]
        clock.now += int(over_address.headers["retry-after"])
        assert (await hint(first)).status_code == 200


async def test_matches_waiting_at_once(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, waiting_per_address=2) as app,
        client_of(app) as client,
        client_of(app, "10.0.0.2") as other,
    ):
        first = await create(client, WAITING)
        await create(client, WAITING)
        answer = await client.post("/v1/matches", json=WAITING)
        assert refused(answer) <= 10
        assert answer.json()["detail"] == (
            "this client already has 2 matches waiting for players; wait for one to be joined "
            "or to expire"
        )
        assert (await client.get("/v1/matches")).json()["matches"].__len__() == 2  # no change
        await create(client)  # a match that does not wait is not counted
        await create(other, WAITING)  # another address has its own quota
        abort = await client.post(
            f"/v1/matches/{first['match']['id']}/abort", headers=bearer(tokens(first)[0])
        )
        assert abort.status_code == 200, abort.text
        await create(client, WAITING)  # the aborted match freed its slot


async def test_a_join_that_starts_the_match_frees_its_waiting_slot(
    database_url: str, clock: Clock
) -> None:
    async with serving(database_url, clock, waiting_per_address=1) as app, client_of(app) as client:
        waiting = await create(client, WAITING)
        refused(await client.post("/v1/matches", json=WAITING))
        joined = await client.post(f"/v1/matches/{waiting['match']['id']}/seats/1/join")
        assert joined.status_code == 200
        await create(client, WAITING)


async def long_poll(client: Client, match_id: str, wait: float = 1.5) -> httpx.Response:
    return await client.get(f"/v1/matches/{match_id}/events?after=100&wait={wait}")


async def leases_held(database_url: str, count: int) -> None:
    """Waits until ``count`` streams and long polls hold their slot, as the quotas count
    them (a request started aside takes its own in its own time)."""
    engine = make_engine(database_url)

    async def held() -> bool:
        async with engine.connect() as conn:
            found = await conn.execute(text("SELECT count(*) FROM stream_leases"))
            return int(found.scalar_one()) == count

    try:
        await eventually(held)
    finally:
        await engine.dispose()


async def test_streams_and_long_polls_per_address(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, streams_per_address=1) as app,
        client_of(app) as client,
        client_of(app, "10.0.0.2") as other,
    ):
        match_id = (await create(client))["match"]["id"]
        holding = asyncio.create_task(long_poll(client, match_id))
        await leases_held(database_url, 1)
        assert refused(await long_poll(client, match_id)) <= 10
        stream = await client.get(f"/v1/matches/{match_id}/events/stream")
        assert stream.status_code == 200  # an EventSource would give up on a 429
        assert stream.text.split() == ["retry:", "2000"]
        # Polls that do not wait hold nothing; another address has slots of its own.
        assert (await client.get(f"/v1/matches/{match_id}/events")).status_code == 200
        assert (await long_poll(other, match_id, 0.2)).status_code == 200
        assert (await holding).status_code == 200
        assert (await long_poll(client, match_id, 0.2)).status_code == 200  # freed


async def test_streams_per_match(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, streams_per_match=1) as app,
        client_of(app, "10.0.0.1") as first,
        client_of(app, "10.0.0.2") as second,
    ):
        match_id = (await create(first))["match"]["id"]
        other_id = (await create(first))["match"]["id"]
        # httpx's ASGI transport answers once the stream has ended: it runs aside.
        holding = asyncio.create_task(first.get(f"/v1/matches/{match_id}/events/stream"))
        await leases_held(database_url, 1)
        turned_away = await second.get(f"/v1/matches/{match_id}/events/stream")
        assert turned_away.status_code == 200
        assert "event:" not in turned_away.text
        assert "retry: 2000" in turned_away.text
        # Long polls are not streams; another match has its own cap.
        assert (await long_poll(second, match_id, 0.2)).status_code == 200
        elsewhere = await second.get(f"/v1/matches/{other_id}/events/stream")
        assert "event: deal_started" in elsewhere.text
        assert "event: deal_started" in (await holding).text
        await leases_held(database_url, 0)  # the release runs beside the stream's end
        served = await second.get(f"/v1/matches/{match_id}/events/stream")
        assert "event: deal_started" in served.text


async def test_x_forwarded_for_from_an_untrusted_peer_changes_nothing(
    database_url: str, clock: Clock
) -> None:
    async with serving(database_url, clock, rate_limit=2) as app, client_of(app) as client:
        for n in range(2):
            await create(client, **{"X-Forwarded-For": f"198.51.100.{n}"})
        spoofed = await client.post(
            "/v1/matches", json=FIXED_MATCH, headers={"X-Forwarded-For": "198.51.100.9"}
        )
        refused(spoofed)


async def test_behind_a_trusted_proxy_the_rightmost_untrusted_address_counts(
    database_url: str, clock: Clock
) -> None:
    async with (
        serving(database_url, clock, rate_limit=1, trusted_proxies=("10.1.0.0/16",)) as app,
        client_of(app, "10.1.2.3") as proxy,
    ):

        async def through(forwarded: str) -> httpx.Response:
            headers = {"X-Forwarded-For": forwarded}
            return await proxy.post("/v1/matches", json=FIXED_MATCH, headers=headers)

        assert (await through("203.0.113.7")).status_code == 201
        # What the client wrote left of its own address is not believed; a second
        # trusted hop is looked through.
        refused(await through("192.0.2.1, 203.0.113.7"))
        refused(await through("203.0.113.7, 10.1.9.9"))
        assert (await through("203.0.113.7, 203.0.113.8")).status_code == 201
        # IPv6 clients count per /64.
        assert (await through("2001:db8:1:2::1")).status_code == 201
        refused(await through("2001:db8:1:2:ffff::9"))
        assert (await through("2001:db8:1:3::1")).status_code == 201


@pytest.mark.postgres
async def test_a_quota_counted_by_one_process_holds_in_another(
    postgres_url: str, clock: Clock
) -> None:
    limits = {"rate_limit": 3, "waiting_per_address": 1, "streams_per_address": 1}
    async with (
        serving(postgres_url, clock, **limits) as one,
        serving(postgres_url, clock, **limits) as two,
        client_of(one) as first,
        client_of(two) as second,
    ):
        match_id = (await create(first, WAITING))["match"]["id"]
        refused(await second.post("/v1/matches", json=WAITING))  # waiting, counted by one
        await create(second)
        # Three creations in all, the one the waiting quota refused included.
        refused(await first.post("/v1/matches", json=FIXED_MATCH))
        holding = asyncio.create_task(long_poll(first, match_id))
        await leases_held(postgres_url, 1)
        refused(await long_poll(second, match_id))
        assert (await holding).status_code == 200


async def test_limits_off_lifts_every_quota(database_url: str, clock: Clock) -> None:
    settings = Settings.from_env({"SCOPA_LIMITS": "off", "SCOPA_DATABASE_URL": database_url})
    assert all(getattr(settings, name) == 0 for name in QUOTAS)
    async with serving(database_url, clock) as app, client_of(app) as client:
        for _ in range(12):  # over every default: 10 waiting, and so on
            answer = await client.post("/v1/matches", json=WAITING)
            assert answer.status_code == 201
            assert "ratelimit" not in answer.headers
        created = await create(client)
        for _ in range(25):
            hint = await client.get(
                f"/v1/matches/{created['match']['id']}/hint?level=easy",
                headers=bearer(tokens(created)[1]),
            )
            assert hint.status_code == 200
        polls = [long_poll(client, created["match"]["id"], 0.3) for _ in range(60)]
        assert {p.status_code for p in await asyncio.gather(*polls)} == {200}


async def resigned(client: Client) -> tuple[str, dict[int, str]]:
    created = await create(client)
    match_id, seats = created["match"]["id"], tokens(created)
    answer = await client.post(f"/v1/matches/{match_id}/resign", headers=bearer(seats[1]))
    assert answer.status_code == 200, answer.text
    return match_id, seats


async def test_a_rematch_is_a_creation_and_waits_under_the_quota(
    database_url: str, clock: Clock
) -> None:
    async with (
        serving(database_url, clock, waiting_per_address=1, rate_limit=4) as app,
        client_of(app) as client,
    ):
        (first, first_seats), (second, second_seats) = [await resigned(client) for _ in "ab"]
        made = await client.post(f"/v1/matches/{first}/rematch", headers=bearer(first_seats[0]))
        assert made.status_code == 201, made.text  # waiting for seat 1's player
        assert made.headers["ratelimit"].startswith('"create";r=1;')
        over = await client.post(f"/v1/matches/{second}/rematch", headers=bearer(second_seats[0]))
        assert refused(over) <= 10
        assert (await client.get(f"/v1/matches/{second}")).json()["rematch"] is None


async def test_reviews_per_minute(database_url: str, clock: Clock) -> None:
    async with serving(database_url, clock, reviews_per_minute=1) as app, client_of(app) as client:
        match_id, _ = await resigned(client)
        assert (await client.get(f"/v1/matches/{match_id}/review?seat=0")).status_code == 200
        wait = refused(await client.get(f"/v1/matches/{match_id}/review?seat=1"))
        clock.now += wait
        assert (await client.get(f"/v1/matches/{match_id}/review?seat=1")).status_code == 200


@pytest.mark.parametrize(("per_minute", "pending"), [(2, 0), (0, 2)])
async def test_challenges_a_minute_and_pending_say_which_and_when(
    database_url: str, clock: Clock, per_minute: int, pending: int
) -> None:
    limits = {"challenges_per_minute": per_minute, "challenges_pending": pending}
    async with serving(database_url, clock, **limits) as app, client_of(app) as client:
        token = {}
        for handle in ("ada", "bea"):
            registered = await client.post("/v1/players", json={"handle": handle})
            token[handle] = bearer(registered.json()["token"]["token"])
        for _ in range(2):
            made = await client.post(
                "/v1/challenges", json={"opponent": "bea"}, headers=token["ada"]
            )
            assert made.status_code == 201, made.text
        answer = await client.post("/v1/challenges", json={"opponent": "bea"}, headers=token["ada"])
        wait = refused(answer)
        if per_minute:
            # Challenges are stamped by the wall clock: the first leaves the minute about
            # 60 s on, not in the 10 s of an "at once" quota.
            assert 50 <= wait <= 60
            assert answer.json()["detail"] == (
                "this player made 2 challenges in the last minute; wait for the oldest to be "
                "a minute old"
            )
        else:
            assert wait <= 10
            assert answer.json()["detail"] == (
                "this player has 2 challenges pending; wait for one to be answered or to "
                "expire, or withdraw one"
            )
