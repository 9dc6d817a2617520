"""Concurrency on Postgres, over the wire: two server processes share one database and
clients on connections of their own are released together.

- 100 conflicting moves on one match, racing: exactly one is accepted, the others are
  refused (409, 412, 422) without changing anything; versions and seqs have no gaps.
- 50 matches played at once by the example bots (``examples/bot.py``), the two seats of
  a match on different processes: every match ends, and its stored log replays to its
  stored state, gapless.
- One request sent 20 times at once with the same ``Idempotency-Key`` and body (a create,
  a move, a join): it takes effect once; every answer is the first one, byte for byte, or
  409 while it runs. And 20 joins of one seat without a key: one takes it.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from examples.bot import play_seat
from scopa.infra.db import make_engine
from scopa.infra.match_reads import MATCHES as MATCH_TABLE
from tests.support.audit import audit
from tests.support.reliability import ReliabilityRecord
from tests.support.server_process import FLEET, Server, start_server

# A hang fails the test, with every thread's stack, instead of holding up the run.
pytestmark = [*FLEET, pytest.mark.timeout(400)]

PROCESSES = 2
RACERS = 100
RACES = 3
MATCHES = 50
AI_MATCHES = 20  # of the 50: a bot against the easy AI, the rest bot against bot
RETRIES = 20
# Liveness only: 50 short matches take about a minute on a loaded 2-core machine.
MATCHES_SECONDS = 240.0
REFUSED = {409, 412, 422}
PROBLEM = "https://scopa.example/problems/"


@pytest.fixture
def servers(new_postgres_database: Callable[[], str], tmp_path: Path) -> Iterator[list[Server]]:
    url = new_postgres_database()
    started: list[Server] = []
    try:
        # One by one: when a start fails, the ones before it are still stopped below.
        started.extend(start_server(url, tmp_path) for _ in range(PROCESSES))
        yield started
    finally:
        # Before the database is dropped: fixtures tear down in reverse order.
        for server in started:
            server.stop()


class Requests:
    """Counts the requests of the clients it hooks into."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, _request: httpx.Request) -> None:
        self.count += 1


async def connected(
    stack: AsyncExitStack, servers: list[Server], n: int, requests: Requests
) -> list[httpx.AsyncClient]:
    """``n`` clients, each on one connection of its own, already open, spread over the
    servers: the races are between requests, not TCP handshakes."""
    # Idle connections are dropped by the client before uvicorn's 5 s keep-alive ends.
    limits = httpx.Limits(max_connections=1, keepalive_expiry=4.0)
    clients = [
        await stack.enter_async_context(
            httpx.AsyncClient(
                base_url=servers[i % len(servers)].base_url,
                limits=limits,
                timeout=30,
                event_hooks={"request": [requests]},
            )
        )
        for i in range(n)
    ]
    for answer in await asyncio.gather(*(c.get("/health") for c in clients)):
        assert answer.status_code == 200
    return clients


Post = tuple[httpx.AsyncClient, str, dict[str, str], Any]


async def together(posts: list[Post]) -> list[httpx.Response]:
    """Each (client, url, headers, JSON body or None) posted, all released at once."""
    go = asyncio.Event()

    async def run(post: Post) -> httpx.Response:
        client, url, headers, body = post
        await go.wait()
        return await client.post(url, headers=headers, json=body)

    tasks = [asyncio.create_task(run(post)) for post in posts]
    await asyncio.sleep(0)  # every task waits at the line
    go.set()
    return list(await asyncio.gather(*tasks))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def problem(answer: httpx.Response) -> str:
    assert answer.headers["content-type"].startswith("application/problem+json"), answer.text
    return str(answer.json()["type"]).removeprefix(PROBLEM)


async def view(client: httpx.AsyncClient, match_id: str, token: str | None = None) -> Any:
    answer = await client.get(f"/v1/matches/{match_id}", headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def events(client: httpx.AsyncClient, match_id: str) -> list[dict[str, Any]]:
    answer = await client.get(f"/v1/matches/{match_id}/events")
    assert answer.status_code == 200, answer.text
    page = answer.json()
    seqs = [event["seq"] for event in page["events"]]
    assert seqs == list(range(1, page["last_seq"] + 1))
    return list(page["events"])


def contender(
    i: int, position: dict[str, Any], other: dict[str, Any], tokens: dict[int, str]
) -> tuple[dict[str, str], dict[str, Any]]:
    """The i-th racer's headers and body: a legal move of the seat to play, bare, with
    If-Match or with a key of its own; or the other seat playing out of turn."""
    seat = position["you"]
    moves = position["legal_moves"]
    move = moves[i % len(moves)]
    body = {"card": move["card"], "capture": move["capture"]}
    kind = i % 4
    if kind == 0:
        return bearer(tokens[seat]), body
    if kind == 1:
        return {**bearer(tokens[seat]), "If-Match": f'"{position["version"]}"'}, body
    if kind == 2:
        # Conditional, or it would be a fine move once the winner has played.
        headers = {**bearer(tokens[other["you"]]), "If-Match": f'"{position["version"]}"'}
        return headers, {"card": other["hand"][0], "capture": None}
    headers = {"If-Match": f'W/"{position["version"]}"', "Idempotency-Key": secrets.token_hex(8)}
    return {**bearer(tokens[seat]), **headers}, body


async def test_hundred_conflicting_moves_one_wins(
    servers: list[Server], reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "concurrency: 100 conflicting moves on one match"
    requests = Requests()
    async with AsyncExitStack() as stack:
        clients = await connected(stack, servers, RACERS, requests)
        client = clients[0]
        created = await client.post(
            "/v1/matches", json={"seats": [{"kind": "human"}] * 2, "seed": 5}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match"]["id"]
        tokens = {t["seat"]: t["token"] for t in created.json()["tokens"]}
        winners: list[dict[str, Any]] = []
        for race in range(RACES):
            spectator = await view(client, match_id)
            seat = spectator["turn"]
            position = await view(client, match_id, tokens[seat])
            other = await view(client, match_id, tokens[1 - seat])
            assert position["version"] == race
            url = f"/v1/matches/{match_id}/moves"
            posts = [
                (c, url, *contender(i, position, other, tokens)) for i, c in enumerate(clients)
            ]
            answers = await together(posts)
            statuses = sorted(a.status_code for a in answers)
            won = [a for a in answers if a.status_code == 200]
            reliability_log.failures += (len(won) != 1) + len(set(statuses) - {200} - REFUSED)
            assert len(won) == 1, statuses
            assert set(statuses) - {200} <= REFUSED, statuses
            for answer in answers:
                if answer.status_code != 200:
                    assert problem(answer) in {"not-your-turn", "stale-version"}, answer.text
            winner = won[0].json()
            assert winner["version"] == race + 1
            assert won[0].headers["ETag"] == f'"{race + 1}"'
            winners.append(winner)
            assert (await view(client, match_id))["version"] == race + 1
        log = await events(client, match_id)
    plays = [event for event in log if event["type"] == "card_played"]
    assert len(plays) == RACES
    assert [p["seat"] for p in plays] == [w["you"] for w in winners]
    checked = await audit(servers[0].database_url, [match_id])
    reliability_log.cases = RACES
    reliability_log.requests = requests.count
    reliability_log.failures += len(checked.problems)
    reliability_log.notes = f"{RACES} races of {RACERS} requests over {PROCESSES} processes"
    assert checked.problems == []


async def test_fifty_matches_at_once_all_consistent(
    servers: list[Server], reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "concurrency: 50 matches played at once by bots"
    requests = Requests()
    limits = httpx.Limits(max_connections=2 * MATCHES, keepalive_expiry=2.0)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=server.base_url,
                    limits=limits,
                    timeout=30,
                    event_hooks={"request": [requests]},
                )
            )
            for server in servers
        ]
        seats: list[dict[str, str]] = [{"kind": "human"}, {"kind": "human"}]
        against_ai: list[dict[str, str]] = [{"kind": "human"}, {"kind": "ai", "level": "easy"}]
        setups = [
            {"seats": against_ai if i < AI_MATCHES else seats, "rules": {"target": 1}, "seed": i}
            for i in range(MATCHES)
        ]
        created = await asyncio.gather(
            *(clients[i % PROCESSES].post("/v1/matches", json=s) for i, s in enumerate(setups))
        )
        assert [c.status_code for c in created] == [201] * MATCHES
        match_ids = [c.json()["match"]["id"] for c in created]
        # Seat n of every match plays through server n: each move wakes the other seat's
        # long poll across processes.
        bots = [
            play_seat(clients[t["seat"] % PROCESSES], c.json()["match"]["id"], t["token"])
            for c in created
            for t in c.json()["tokens"]
        ]
        async with asyncio.timeout(MATCHES_SECONDS):
            finals = await asyncio.gather(*bots)
    checked = await audit(servers[0].database_url, match_ids)
    reliability_log.cases = MATCHES
    reliability_log.requests = requests.count
    reliability_log.failures = len(checked.problems) + (checked.finished != MATCHES)
    reliability_log.notes = (
        f"{len(bots)} bots over {PROCESSES} processes, {checked.events} events replayed"
    )
    assert checked.problems == []
    assert checked.matches == checked.finished == MATCHES
    assert all(final["status"] == "finished" for final in finals)


async def test_idempotent_retries_at_once_apply_once(
    servers: list[Server], reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "concurrency: 20 identical idempotent retries at once"
    answered: list[httpx.Response] = []

    def check_retries(answers: list[httpx.Response], success: int) -> httpx.Response:
        answered.extend(answers)
        firsts = [a for a in answers if a.status_code == success]
        others = [a for a in answers if a.status_code != success]
        assert firsts, [a.text for a in answers]
        assert {problem(a) for a in others} <= {"idempotency-key-in-flight"}
        assert {a.status_code for a in others} <= {409}
        assert len({a.content for a in firsts}) == 1
        assert len({(a.headers.get("ETag"), a.headers.get("Location")) for a in firsts}) == 1
        return firsts[0]

    requests = Requests()
    async with AsyncExitStack() as stack:
        clients = await connected(stack, servers, RETRIES, requests)
        client = clients[0]
        key = {"Idempotency-Key": "create-once-0001"}
        body = {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 3}
        first = check_retries(
            await together([(c, "/v1/matches", key, body) for c in clients]),
            201,
        )
        match_id = first.json()["match"]["id"]
        tokens = {t["seat"]: t["token"] for t in first.json()["tokens"]}
        again = await client.post("/v1/matches", headers=key, json=body)
        answered.append(again)
        assert (again.status_code, again.content) == (201, first.content)
        engine = make_engine(servers[0].database_url)
        try:
            async with engine.connect() as conn:
                stored = (
                    await conn.execute(select(func.count()).select_from(MATCH_TABLE))
                ).scalar()
        finally:
            await engine.dispose()
        assert stored == 1

        seat = (await view(client, match_id))["turn"]
        position = await view(client, match_id, tokens[seat])
        move = position["legal_moves"][0]
        headers = {**bearer(tokens[seat]), "Idempotency-Key": "move-once"}
        move_body = {"card": move["card"], "capture": move["capture"]}
        url = f"/v1/matches/{match_id}/moves"
        first_move = check_retries(
            await together([(c, url, headers, move_body) for c in clients]),
            200,
        )
        assert first_move.json()["version"] == 1
        again = await client.post(url, headers=headers, json=move_body)
        answered.append(again)
        assert (again.status_code, again.content) == (200, first_move.content)
        assert (await view(client, match_id))["version"] == 1
        plays = [e for e in await events(client, match_id) if e["type"] == "card_played"]
        assert len(plays) == 1

        open_body = {"seats": [{"kind": "human"}, {"kind": "open"}], "seed": 4}
        waiting = await client.post("/v1/matches", json=open_body)
        assert waiting.status_code == 201, waiting.text
        open_id = waiting.json()["match"]["id"]
        join_url = f"/v1/matches/{open_id}/seats/1/join"
        join_key = {"Idempotency-Key": "join-once-000001"}
        joined = check_retries(
            await together([(c, join_url, join_key, None) for c in clients]),
            200,
        )
        joins = [e for e in await events(client, open_id) if e["type"] == "seat_joined"]
        assert len(joins) == 1
        seat_view = await view(client, open_id, joined.json()["token"])
        assert seat_view["you"] == 1
        assert seat_view["version"] == 1

        # Without a key, racing joins of one seat are different requests: one takes it.
        another = await client.post("/v1/matches", json=open_body)
        assert another.status_code == 201, another.text
        race_id = another.json()["match"]["id"]
        race_url = f"/v1/matches/{race_id}/seats/1/join"
        answers = await together([(c, race_url, {}, None) for c in clients])
        answered.extend(answers)
        assert sorted(a.status_code for a in answers) == [200] + [409] * (RETRIES - 1)
        assert {problem(a) for a in answers if a.status_code == 409} == {"seat-not-open"}

    checked = await audit(servers[0].database_url, [match_id, open_id, race_id])
    reliability_log.cases = 4
    reliability_log.requests = requests.count
    reliability_log.failures = len(checked.problems)
    in_flight = sum(
        a.status_code == 409 and problem(a) == "idempotency-key-in-flight" for a in answered
    )
    reliability_log.notes = (
        f"create, move and join each sent {RETRIES} times at once over {PROCESSES} "
        f"processes: applied once each; {in_flight} answers 409 in flight, the rest "
        f"identical; {RETRIES} joins of one seat without a key: one took it"
    )
    assert checked.problems == []
