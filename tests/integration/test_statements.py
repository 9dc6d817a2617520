"""The lane of connections single statements run on (infra.statements), on Postgres."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from scopa.infra.db import make_engine
from scopa.infra.statements import Lane, pg_statement
from tests.support.eventually import eventually

pytestmark = pytest.mark.postgres


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


@pytest.fixture
async def dsn(postgres_url: str) -> str:
    return _dsn(postgres_url)


async def _alive(dsn: str, pids: set[int]) -> set[int]:
    """Those of ``pids`` still connected."""
    admin = await asyncpg.connect(dsn)
    try:
        rows = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE pid = any($1)", pids)
        return {row["pid"] for row in rows}
    finally:
        await admin.close()


async def _running(dsn: str, query: str, sessions: int = 1) -> None:
    """Waits until ``sessions`` connections run ``query``: a statement sent aside reaches
    the server in its own time."""
    admin = await asyncpg.connect(dsn)
    try:
        await eventually(
            lambda: admin.fetchval(
                "SELECT count(*) = $2 FROM pg_stat_activity WHERE query = $1"
                " AND state = 'active' AND datname = current_database()",
                query,
                sessions,
            )
        )
    finally:
        await admin.close()


@pytest.fixture
async def lane(dsn: str) -> AsyncIterator[Lane]:
    made = Lane(lambda: asyncpg.connect(dsn), size=2, wait=0.3)
    yield made
    await made.close()


async def test_a_connection_is_kept_for_the_next_statement(lane: Lane) -> None:
    first = await lane.run("fetchval", "SELECT pg_backend_pid()", read=True)
    assert await lane.run("fetchval", "SELECT pg_backend_pid()", read=True) == first


async def test_a_refused_statement_keeps_its_connection(lane: Lane) -> None:
    first = await lane.run("fetchval", "SELECT pg_backend_pid()", read=True)
    with pytest.raises(asyncpg.DivisionByZeroError):
        await lane.run("fetchval", "SELECT 1 / $1::int", 0, read=False)
    assert await lane.run("fetchval", "SELECT pg_backend_pid()", read=True) == first


async def test_a_cancelled_statement_lets_its_connection_go(lane: Lane, dsn: str) -> None:
    first = await lane.run("fetchval", "SELECT pg_backend_pid()", read=True)
    running = asyncio.ensure_future(lane.run("execute", "SELECT pg_sleep(5)", read=False))
    await _running(dsn, "SELECT pg_sleep(5)")
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    # Never handed out again: the next statement is on a new connection.
    assert await lane.run("fetchval", "SELECT pg_backend_pid()", read=True) != first


async def test_no_more_than_its_size_at_once_and_a_bounded_wait(lane: Lane, dsn: str) -> None:
    query = "SELECT pg_backend_pid() FROM pg_sleep(1)"
    sleeping = [asyncio.ensure_future(lane.run("fetchval", query, read=True)) for _ in range(2)]
    await _running(dsn, query, sessions=2)
    with pytest.raises(TimeoutError):
        await lane.run("fetchval", "SELECT 1", read=True)
    pids = set(await asyncio.gather(*sleeping))
    assert len(pids) == 2
    # The waiter's turn comes on one of the two, not on a third connection.
    assert await lane.run("fetchval", "SELECT pg_backend_pid()", read=True) in pids


async def test_a_read_on_a_connection_the_server_ended_goes_again(lane: Lane, dsn: str) -> None:
    pid = await lane.run("fetchval", "SELECT pg_backend_pid()", read=True)
    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()
    assert await lane.run("fetchval", "SELECT pg_backend_pid()", read=True) != pid


async def test_a_write_on_a_dropped_connection_is_not_sent_twice(dsn: str) -> None:
    connections: list[asyncpg.Connection] = []

    async def connect() -> asyncpg.Connection:
        connections.append(await asyncpg.connect(dsn))
        return connections[-1]

    lane = Lane(connect, size=1, wait=0.3)
    try:
        await lane.run("execute", "CREATE TEMP TABLE IF NOT EXISTS t (n int)", read=False)
        admin = await asyncpg.connect(dsn)
        try:
            query = "SELECT pg_sleep(1); SELECT 1"
            writing = asyncio.ensure_future(lane.run("execute", query, read=False))
            await _running(dsn, query)
            await admin.execute("SELECT pg_terminate_backend($1)", connections[0].get_server_pid())
        finally:
            await admin.close()
        with pytest.raises((asyncpg.AdminShutdownError, asyncpg.PostgresConnectionError)):
            await writing
        assert len(connections) == 1  # not tried again on a new connection
    finally:
        await lane.close()


async def test_disposing_the_engine_closes_its_lane(postgres_url: str, dsn: str) -> None:
    engine = make_engine(postgres_url)
    query = "SELECT pg_backend_pid() FROM pg_sleep(0.2)"
    running = [pg_statement(engine, "fetchval", query, read=True) for _ in range(3)]
    pids = set(await asyncio.gather(*running))
    assert len(pids) == 3
    assert await _alive(dsn, pids) == pids
    await engine.dispose()

    async def all_gone() -> bool:
        return not await _alive(dsn, pids)

    await eventually(all_gone, seconds=2.5)
    # Disposed is not closed for good: the next statement connects again.
    try:
        assert await pg_statement(engine, "fetchval", "SELECT 1", read=True) == 1
    finally:
        await engine.dispose()
