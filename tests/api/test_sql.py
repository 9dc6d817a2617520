"""The app as ``scopa serve`` builds it, over SQLite and Postgres: the same contract, plus
what only a real database shows (races between requests, several processes, outages)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from scopa.domain.cards import parse_card
from scopa.domain.match import Seat
from scopa.infra.db import make_engine
from scopa.infra.notify import LocalEventBus
from scopa.infra.stores import sql_stores
from scopa.service.seating import Setup
from scopa.wiring import services_over
from tests.api.support import (
    DECK,
    FIXED_MATCH,
    Client,
    bearer,
    create,
    play_out,
    problem_type,
    serving,
    tokens,
    waited_on,
)
from tests.fakes import FirstMoveAi


@pytest.fixture
async def sql_client(database_url: str) -> AsyncIterator[Client]:
    async with serving(database_url) as client:
        yield client


async def test_a_whole_match_with_replays(sql_client: Client) -> None:
    client = sql_client
    assert (await client.get("/ready")).status_code == 200
    key = {"Idempotency-Key": "create-key-00001"}
    body = {**FIXED_MATCH, "rules": {"target": 1}}
    created = (await client.post("/v1/matches", json=body, headers=key)).json()
    again = await client.post("/v1/matches", json=body, headers=key)
    assert again.status_code == 201
    assert again.json() == created
    match_id, seat = created["match"]["id"], tokens(created)
    moved = await client.post(
        f"/v1/matches/{match_id}/moves",
        json={"card": "5S"},
        headers={**bearer(seat[1]), "Idempotency-Key": "m1", "If-Match": '"0"'},
    )
    assert moved.status_code == 200
    replay = await client.post(
        f"/v1/matches/{match_id}/moves",
        json={"card": "5S"},
        headers={**bearer(seat[1]), "Idempotency-Key": "m1", "If-Match": '"0"'},
    )
    assert replay.json() == moved.json()
    reused = await client.post(
        f"/v1/matches/{match_id}/moves",
        json={"card": "KH"},
        headers={**bearer(seat[1]), "Idempotency-Key": "m1"},
    )
    assert reused.status_code == 422
    final = await play_out(client, match_id, seat)
    assert final["status"] == "finished"
    page = (await client.get(f"/v1/matches/{match_id}/events", headers=bearer(seat[0]))).json()
    assert [e["seq"] for e in page["events"]] == list(range(1, page["last_seq"] + 1))
    scores = (await client.get(f"/v1/matches/{match_id}/scores")).json()
    assert scores["scores"] == final["scores"]
    stream = await client.get(f"/v1/matches/{match_id}/events/stream", params={"after": 3})
    assert stream.text.count("\nevent: ") + stream.text.startswith("event: ") > 0
    assert f"id: {page['last_seq']}" in stream.text


async def test_racing_moves_make_one_move(sql_client: Client) -> None:
    created = await create(sql_client)
    match_id, seat = created["match"]["id"], tokens(created)

    async def play(card: str, key: str) -> httpx.Response:
        return await sql_client.post(
            f"/v1/matches/{match_id}/moves",
            json={"card": card},
            headers={**bearer(seat[1]), "Idempotency-Key": key},
        )

    answers = await asyncio.gather(play("5S", "a"), play("KH", "b"), play("5S", "c"))
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409, 409]
    assert all(problem_type(a) == "not-your-turn" for a in answers if a.status_code == 409)
    view = (await sql_client.get(f"/v1/matches/{match_id}")).json()
    assert view["version"] == 1
    assert sum(s["hand_count"] for s in view["seats"]) == 5


async def test_racing_retries_of_one_key_move_once(sql_client: Client) -> None:
    created = await create(sql_client)
    match_id, seat = created["match"]["id"], tokens(created)
    answers = await asyncio.gather(
        *(
            sql_client.post(
                f"/v1/matches/{match_id}/moves",
                json={"card": "5S"},
                headers={**bearer(seat[1]), "Idempotency-Key": "same"},
            )
            for _ in range(3)
        )
    )
    ok = [a for a in answers if a.status_code == 200]
    assert ok
    assert all(a.json() == ok[0].json() for a in ok)
    for refused in (a for a in answers if a.status_code != 200):
        assert refused.status_code == 409
        assert problem_type(refused) == "idempotency-key-in-flight"
    assert (await sql_client.get(f"/v1/matches/{match_id}")).json()["version"] == 1


async def test_racing_joins_fill_a_seat_once(sql_client: Client) -> None:
    created = await create(sql_client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    match_id = created["match"]["id"]
    answers = await asyncio.gather(
        *(sql_client.post(f"/v1/matches/{match_id}/seats/1/join") for _ in range(3))
    )
    assert sorted(a.status_code for a in answers) == [200, 409, 409]
    lobby = (await sql_client.get("/v1/matches")).json()
    assert match_id not in [m["id"] for m in lobby["matches"]]


async def test_ai_seats_play_through_the_worker_pool(sql_client: Client) -> None:
    created = await create(
        sql_client,
        {
            "seats": [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "medium"}],
            "rules": {"target": 1},
            "seed": 9,
        },
    )
    match_id = created["match"]["id"]
    deadline = time.monotonic() + 30
    while (await sql_client.get(f"/v1/matches/{match_id}")).json()["status"] != "finished":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)


@pytest.mark.postgres
async def test_two_processes_share_one_database(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with serving(postgres_url) as first, serving(postgres_url) as second:
        created = await create(first)
        match_id, seat = created["match"]["id"], tokens(created)
        # Only the first process follows the match: the wait is its poll's.
        followed = waited_on(LocalEventBus, monkeypatch)

        async def later() -> None:
            await asyncio.wait_for(followed.wait(), 5)
            answer = await second.post(
                f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1])
            )
            assert answer.status_code == 200

        started = time.monotonic()
        polled, _ = await asyncio.gather(
            first.get(f"/v1/matches/{match_id}/events", params={"after": 1, "wait": 20}),
            later(),
        )
        # Woken by the other process's notification, not by the end of the wait.
        assert time.monotonic() - started < 5
        assert [e["type"] for e in polled.json()["events"]] == ["card_played"]


async def test_an_unreachable_database_is_503_quickly() -> None:
    # Nothing listens on port 1: connections are refused at once.
    async with serving("postgresql+asyncpg://postgres@127.0.0.1:1/scopa") as client:
        started = time.monotonic()
        for route in ("/ready", "/v1/matches/" + "A" * 22, "/v1/matches"):
            answer = await client.get(route)
            assert answer.status_code == 503
            assert problem_type(answer) == "database-unavailable"
            assert answer.headers["retry-after"]
        answer = await client.post("/v1/matches", json=FIXED_MATCH)
        assert answer.status_code == 503
        assert time.monotonic() - started < 10
        assert (await client.get("/health")).status_code == 200


async def test_a_restarted_server_plays_pending_ai_turns_within_2_s(database_url: str) -> None:
    # Stored by a process that died before its AI moved: no runner is told of it.
    engine = make_engine(database_url)
    try:
        store = sql_stores(engine)
        dead = services_over(store, LocalEventBus(), ai=FirstMoveAi())
        setup = Setup(
            seats=(Seat("human"), Seat("ai", "hard")),
            decks=(tuple(parse_card(c) for c in DECK),),
            first_dealer=0,
        )
        created = await dead.seating.create(setup, None, "fp")
    finally:
        await engine.dispose()
    async with serving(database_url, ai_workers=1) as client:
        # From the moment it serves: how long a loaded machine takes to start a process
        # and its AI pool is not what the 2 s are about.
        started = time.monotonic()
        while (await client.get(f"/v1/matches/{created.match.id}")).json()["version"] == 0:
            assert time.monotonic() - started < 2
            await asyncio.sleep(0.02)
