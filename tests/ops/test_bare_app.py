"""bench/bare_app.py's routes answer as bench/wrk_client.lua expects: 200s, no storage
needed but for /write, /play and /duties, which say 503 without a database rather than
failing later; /play, with one, plays and stores a move each time, and /duties does too
for the seat's token alone, naming the request and notifying every listener."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import asyncpg
import pytest
from litestar.testing import TestClient

from bench.api import floor_tables
from bench.bare_app import build
from scopa.infra.notify import CHANNEL
from tests.support.databases import run_aside


def test_routes_without_a_database() -> None:
    with TestClient(app=build()) as client:
        assert client.get("/").json() == {"hello": "world", "n": 1}
        echoed = client.post("/echo/3", json={"card": "7D"})
        assert (echoed.status_code, echoed.json()) == (200, {"n": 3, "card": "7D"})
        assert client.post("/write/3", json={"card": "7D"}).status_code == 503
        assert client.post("/play/3", json={"card": "7D"}).status_code == 503
        assert client.post("/duties/3", json={"card": "7D"}).status_code == 503


@pytest.mark.postgres
def test_the_play_floor_plays_and_stores_each_move(
    new_postgres_database: Callable[[], str],
) -> None:
    dsn = new_postgres_database().replace("postgresql+asyncpg://", "postgresql://")
    run_aside(_tables(dsn))
    with TestClient(app=build(dsn)) as client:
        views = [client.post("/play/0", json={}).json() for _ in range(8)]
    # One move each: the match moves on, as the mover sees it.
    assert [view["last_seq"] for view in views] == sorted({view["last_seq"] for view in views})
    assert all(view["status"] == "active" for view in views)
    stored = run_aside(_fetch(dsn, "SELECT version, state IS NOT NULL AS kept FROM bench_play"))
    assert [(row["version"], row["kept"]) for row in stored if row["version"]] == [(8, True)]
    events = run_aside(_fetch(dsn, "SELECT count(DISTINCT version) AS n FROM bench_play_events"))
    assert events[0]["n"] == 8


@pytest.mark.postgres
def test_the_duties_floor_checks_the_token_names_stores_and_notifies(
    new_postgres_database: Callable[[], str],
) -> None:
    dsn = new_postgres_database().replace("postgresql+asyncpg://", "postgresql://")
    run_aside(_tables(dsn))
    heard = run_aside(_listening(dsn, _duties(dsn)))
    views, refused, request_ids = heard["answers"]
    assert refused == [401, 401]
    assert [view["last_seq"] for view in views] == sorted({view["last_seq"] for view in views})
    assert len(set(request_ids)) == 3
    assert all(len(rid) == 32 for rid in request_ids)
    # Each stored move told the channel the match (the connection) and its latest seq.
    assert heard["notices"] == [f"1:{view['last_seq']}" for view in views]
    stored = run_aside(_fetch(dsn, "SELECT id, version FROM bench_play WHERE version > 0"))
    assert [(row["id"], row["version"]) for row in stored] == [(1, 3)]


def _duties(dsn: str) -> Callable[[], tuple[list[Any], list[int], list[str]]]:
    def play() -> tuple[list[Any], list[int], list[str]]:
        with TestClient(app=build(dsn)) as client:
            refused = [
                client.post("/duties/1", json={}).status_code,
                client.post(
                    "/duties/1", json={}, headers={"Authorization": "Bearer bench-seat-0"}
                ).status_code,
            ]
            seat = {"Authorization": "Bearer bench-seat-1"}
            answers = [client.post("/duties/1", json={}, headers=seat) for _ in range(3)]
        views = [answer.json() for answer in answers]
        return views, refused, [answer.headers["x-request-id"] for answer in answers]

    return play


async def _listening(
    dsn: str, play: Callable[[], tuple[list[Any], list[int], list[str]]]
) -> dict[str, Any]:
    notices: list[str] = []
    conn = await asyncpg.connect(dsn)
    try:
        await conn.add_listener(CHANNEL, lambda *args: notices.append(args[3]))
        answers = await asyncio.to_thread(play)
        for _ in range(100):  # notifications arrive after the commits, on their own
            if len(notices) >= 3:
                break
            await asyncio.sleep(0.02)
    finally:
        await conn.close()
    return {"answers": answers, "notices": notices}


async def _tables(dsn: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(floor_tables(2))
    finally:
        await conn.close()


async def _fetch(dsn: str, query: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(dsn)
    try:
        return list(await conn.fetch(query))
    finally:
        await conn.close()
