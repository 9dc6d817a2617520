"""Deleting a player ends all it could still do, and revoking a token ends what it opened:
over SQLite and Postgres in one process, then across two ``scopa serve`` processes on one
Postgres database (a deletion racing a join, a revocation heard by another process)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.support import bearer
from tests.api.test_challenges import news
from tests.api.test_players import register, token_of
from tests.support.eventually import eventually
from tests.support.in_process import serve
from tests.support.server_process import Server, two_servers_on

OPEN_SEAT = {"seats": [{"kind": "human"}, {"kind": "open"}]}
# Well within the stream's heartbeat (15 s), by which a stream re-checks its token
# anyway: a stream that ends sooner ended on hearing of the revocation.
HEARD_SECONDS = 8.0


async def test_a_deleted_player_keeps_no_seat_token_and_no_pending_challenge(
    database_url: str,
) -> None:
    async with serve(database_url) as served:
        client = served.client
        ada = token_of(await register(client, "ada", name="Ada"))
        bea = token_of(await register(client, "bea", name="Bea"))
        created = (await client.post("/v1/matches", json=OPEN_SEAT, headers=bearer(ada))).json()
        match_id, seat_token = created["match"]["id"], created["tokens"][0]["token"]
        path = f"/v1/matches/{match_id}"
        assert (await client.post(f"{path}/seats/1/join", headers=bearer(bea))).status_code == 200
        assert (await client.post(f"{path}/resign", headers=bearer(ada))).status_code == 200
        for body, token in (({"opponent": "bea"}, ada), ({"opponent": "ada"}, bea), ({}, ada)):
            made = await client.post("/v1/challenges", json=body, headers=bearer(token))
            assert made.status_code == 201, made.text

        assert (await client.delete("/v1/me", headers=bearer(ada))).status_code == 204

        # Its seat tokens read nothing and ask for nothing.
        read = await client.get(path, headers=bearer(seat_token))
        assert read.status_code == 401, read.text
        asked = await client.post(f"{path}/rematch", headers=bearer(seat_token))
        assert asked.status_code == 401, asked.text
        # Its challenges, made and received, are over, and the other player heard so.
        mine = (await client.get("/v1/me/challenges", headers=bearer(bea))).json()
        assert mine == {"incoming": [], "outgoing": [], "next_cursor": None}
        assert (await client.get("/v1/challenges")).json() == {"challenges": []}
        stream = await client.get("/v1/me/challenges/stream", headers=bearer(bea))
        heard = sorted(c["status"] for _, c in news(stream.text))
        assert heard == ["cancelled", "declined", "pending"]
        # A rematch leaves its seat open, under no name or handle of its.
        rematch = await client.post(f"{path}/rematch", headers=bearer(bea))
        assert rematch.status_code == 201, rematch.text
        seats = rematch.json()["match"]["seats"]
        assert [(s["kind"], s["player"]) for s in seats] == [("open", None), ("human", "bea")]


@pytest.mark.parametrize("route", ["challenges", "match"])
async def test_a_stream_ends_when_the_token_that_opened_it_is_revoked(
    database_url: str, route: str
) -> None:
    async with serve(database_url, stream_seconds=60.0) as served:
        client = served.client
        registered = await register(client, "ada")
        token = token_of(registered)
        spare = (await client.post("/v1/me/tokens", headers=bearer(token))).json()["token"]
        path = "/v1/me/challenges/stream"
        if route == "match":
            created = await client.post("/v1/matches", json=OPEN_SEAT, headers=bearer(token))
            path = f"/v1/matches/{created.json()['match']['id']}/events/stream"
        bus = served.service.challenging.bus
        streaming = asyncio.create_task(client.get(path, headers=bearer(token)))
        await eventually(lambda: getattr(bus, "waiting", 0) > 0)
        revoked = await client.delete(
            f"/v1/me/tokens/{registered['token']['id']}", headers=bearer(spare)
        )
        assert revoked.status_code == 204
        async with asyncio.timeout(HEARD_SECONDS):
            ended = await streaming
        assert ended.status_code == 200


@pytest.fixture
def two_servers(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Server, Server]]:
    with two_servers_on(postgres_url, tmp_path) as both:
        yield both


@pytest.mark.slow
async def test_a_deletion_racing_a_join_in_another_process_has_one_winner(
    two_servers: tuple[Server, Server],
) -> None:
    async with (
        httpx.AsyncClient(base_url=two_servers[0].base_url, timeout=20) as one,
        httpx.AsyncClient(base_url=two_servers[1].base_url, timeout=20) as other,
    ):
        host = token_of(await register(one, "host"))
        outcomes = []
        for round in range(20):
            guest = token_of(await register(one, f"guest-{round}"))
            created = await one.post("/v1/matches", json=OPEN_SEAT, headers=bearer(host))
            match_id = created.json()["match"]["id"]
            deleted, joined = await asyncio.gather(
                one.delete("/v1/me", headers=bearer(guest)),
                other.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(guest)),
            )
            outcomes.append((deleted.status_code, joined.status_code))
            seat = (await one.get(f"/v1/matches/{match_id}")).json()["seats"][1]
            profile = await one.get(f"/v1/players/guest-{round}")
            if joined.status_code == 200:
                assert (seat["player"], profile.status_code) == (f"guest-{round}", 200)
            else:
                assert (seat["kind"], profile.status_code) == ("open", 404)
    assert set(outcomes) <= {(204, 401), (409, 200)}, outcomes


@pytest.mark.slow
async def test_a_revocation_through_one_process_ends_a_stream_of_another(
    two_servers: tuple[Server, Server],
) -> None:
    async with (
        httpx.AsyncClient(base_url=two_servers[0].base_url, timeout=20) as one,
        httpx.AsyncClient(base_url=two_servers[1].base_url, timeout=20) as other,
    ):
        registered = await register(one, "ada")
        token = token_of(registered)
        spare = (await one.post("/v1/me/tokens", headers=bearer(token))).json()["token"]
        async with other.stream("GET", "/v1/me/challenges/stream", headers=bearer(token)) as stream:
            assert stream.status_code == 200
            chunks = stream.aiter_bytes()
            await anext(chunks)  # the stream is open
            revoked = await one.delete(
                f"/v1/me/tokens/{registered['token']['id']}", headers=bearer(spare)
            )
            assert revoked.status_code == 204
            async with asyncio.timeout(HEARD_SECONDS):
                async for _ in chunks:
                    pass
        assert (await other.get("/v1/me", headers=bearer(token))).status_code == 401
