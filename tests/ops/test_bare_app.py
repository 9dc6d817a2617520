"""bench/bare_app.py's routes answer as bench/wrk_client.lua expects: 200s, no storage
needed but for /write and /play, which say 503 without a database rather than failing
later; /play, with one, plays and stores a move each time."""

from __future__ import annotations

from collections.abc import Callable

import asyncpg
import pytest
from litestar.testing import TestClient

from bench.api import floor_tables
from bench.bare_app import build
from tests.support.databases import new_postgres_database, postgres_reachable, run_aside

__all__ = ["new_postgres_database", "postgres_reachable"]  # fixtures, used by name


def test_routes_without_a_database() -> None:
    with TestClient(app=build()) as client:
        assert client.get("/").json() == {"hello": "world", "n": 1}
        echoed = client.post("/echo/3", json={"card": "7D"})
        assert (echoed.status_code, echoed.json()) == (200, {"n": 3, "card": "7D"})
        assert client.post("/write/3", json={"card": "7D"}).status_code == 503
    assert client.post("/play/3", json={"card": "7D"}).status_code == 503


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
