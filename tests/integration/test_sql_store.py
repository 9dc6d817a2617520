"""The SQL match stores where they meet their databases: two engines on one SQLite
file, a database out of reach, connections dropped, a statement stuck on a lock. The
contract every store keeps is tested in ``tests/contract``."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import asyncpg
import pytest

from scopa.infra.db import DatabaseUnavailable, make_engine
from scopa.infra.stores import sql_stores
from tests.support.stored import advance, stored
from tests.support.writes import save


async def test_two_engines_on_one_sqlite_file_never_lock_each_other(sqlite_url: str) -> None:
    # Two engines stand for two server processes: only SQLite's own locking is shared.
    engines = [make_engine(sqlite_url), make_engine(sqlite_url)]
    try:
        first, second = (sql_stores(e) for e in engines)
        await asyncio.gather(
            *(stored(first, f"a{i}") for i in range(20)),
            *(stored(second, f"b{i}") for i in range(20)),
        )
        assert len(await first.reads.waiting(100, None)) == 0
        assert await second.matches.get("a19") is not None
    finally:
        for engine in engines:
            await engine.dispose()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "url",
    [
        pytest.param(f"postgresql+asyncpg://postgres@127.0.0.1:{_closed_port()}/x", id="pg"),
        pytest.param("sqlite+aiosqlite:////nonexistent/dir/scopa.db", id="sqlite"),
    ],
)
async def test_an_unreachable_database_is_unavailable_at_once(url: str) -> None:
    engine = make_engine(url)
    store = sql_stores(engine)
    started = time.monotonic()
    try:
        with pytest.raises(DatabaseUnavailable):
            await store.reads.ping()
        with pytest.raises(DatabaseUnavailable):
            await store.matches.get("m1")
    finally:
        await engine.dispose()
        await _aiosqlite_threads_done()
    assert time.monotonic() - started < 5


async def _aiosqlite_threads_done() -> None:
    # aiosqlite stops the thread of a connection that failed to open without awaiting
    # it: the thread must finish while this test's event loop is still open.
    deadline = time.monotonic() + 5
    while any("_connection_worker_thread" in t.name for t in threading.enumerate()):
        assert time.monotonic() < deadline, "aiosqlite threads left running"
        await asyncio.sleep(0.01)


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


@pytest.mark.postgres
async def test_the_store_outlives_its_connections_being_dropped(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    store = sql_stores(engine)
    try:
        await stored(store, "m1")
        admin = await asyncpg.connect(_dsn(postgres_url))
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        finally:
            await admin.close()

        assert await store.matches.get("m1") is not None
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_statement_stuck_on_a_lock_is_unavailable_soon(postgres_url: str) -> None:
    engine = make_engine(postgres_url, command_timeout=0.5)
    store = sql_stores(engine)
    try:
        initial = await stored(store, "m1")
        state, events = advance(initial)
        blocker = await asyncpg.connect(_dsn(postgres_url))
        try:
            async with blocker.transaction():
                await blocker.execute("SELECT 1 FROM matches WHERE id = 'm1' FOR UPDATE")
                started = time.monotonic()
                with pytest.raises(DatabaseUnavailable):
                    await save(store.matches, "m1", 0, state, events)
                assert time.monotonic() - started < 3
        finally:
            await blocker.close()

        await save(store.matches, "m1", 0, state, events)
    finally:
        await engine.dispose()


async def test_a_plain_url_means_the_async_driver(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url.replace("sqlite+aiosqlite:", "sqlite:"))
    try:
        await sql_stores(engine).reads.ping()
        assert engine.dialect.driver == "aiosqlite"
    finally:
        await engine.dispose()
