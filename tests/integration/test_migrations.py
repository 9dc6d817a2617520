"""The migrations build the tables the code expects, on both databases, even when
several processes run them at once."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest
from alembic import command
from sqlalchemy import inspect
from sqlalchemy.engine import make_url

from infra.db import make_engine
from infra.migrate import LOCK_KEY, alembic_config, migrate

ROOT = Path(__file__).resolve().parents[2]
MIGRATE = "import asyncio, sys, infra.migrate as m; asyncio.run(m.migrate(sys.argv[1]))"

TABLES = {"matches", "seats", "events", "idempotency", "alembic_version"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    make: Callable[[], str] = request.getfixturevalue("new_postgres_database")
    return make()


async def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_migrating_creates_the_tables_once(empty_url: str) -> None:
    await migrate(empty_url)
    await migrate(empty_url)

    assert await tables(empty_url) == TABLES


async def test_migrations_started_together_all_succeed(empty_url: str) -> None:
    await asyncio.gather(*(migrate(empty_url) for _ in range(4)))

    assert await tables(empty_url) == TABLES


@pytest.mark.postgres
async def test_processes_take_turns_at_migrating(
    new_postgres_database: Callable[[], str],
) -> None:
    url = new_postgres_database()
    dsn = make_url(url).set(drivername="postgresql").render_as_string(False)
    holder = await asyncpg.connect(dsn)
    try:
        # Hold the migration lock so that both processes are surely there at once.
        await holder.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
        processes = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", MIGRATE, url, cwd=ROOT, stderr=asyncio.subprocess.PIPE
            )
            for _ in range(2)
        ]
        deadline = time.monotonic() + 30
        waiting = (
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        while await holder.fetchval(waiting) < 2:
            assert time.monotonic() < deadline, "the processes never queued for the lock"
            await asyncio.sleep(0.05)
        await holder.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
        outcomes = [await p.communicate() for p in processes]
    finally:
        await holder.close()

    assert [p.returncode for p in processes] == [0, 0], outcomes
    assert await tables(url) == TABLES


async def test_the_tables_match_the_models(empty_url: str) -> None:
    await migrate(empty_url)
    # Alembic's own commands run their event loop: keep them off this one.
    await asyncio.to_thread(command.check, alembic_config(empty_url))


async def test_the_migrations_go_down_and_up_again(empty_url: str) -> None:
    await migrate(empty_url)
    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "base")
    assert await tables(empty_url) == {"alembic_version"}

    await migrate(empty_url)
    assert await tables(empty_url) == TABLES
