"""Database fixtures, on SQLite and Postgres, for the test folders that store anything
(registered for every folder as a plugin in tests/conftest.py).

``sqlite_url``: a migrated SQLite file of the test's own. ``postgres_url``: the session's
migrated Postgres database, emptied before each test. ``database_url``: each of the two in
turn. ``new_postgres_database``: a factory of empty Postgres databases, dropped after the
test. Postgres tests skip when the server is unreachable, unless ``CI`` is set: then they
fail, so CI never passes by skipping them.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import pytest

from scopa.infra.migrate import migrate
from scopa.infra.tables import Base

PG_HOST = os.environ.get("SCOPA_TEST_PG_HOST", "127.0.0.1:5432")
PG_ADMIN_DSN = f"postgresql://postgres@{PG_HOST}/postgres"
# Every table of the schema, those that refer to others first.
TABLES = tuple(t.name for t in reversed(Base.metadata.sorted_tables))

T = TypeVar("T")


def postgres_url_of(database: str) -> str:
    return f"postgresql+asyncpg://postgres@{PG_HOST}/{database}"


def run_aside(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a loop of its own in another thread, leaving the
    test's event loop (and the main thread's loop policy) alone."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _admin(*statements: str, database: str = "postgres") -> None:
    conn = await asyncpg.connect(f"postgresql://postgres@{PG_HOST}/{database}", timeout=3)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


def _create_database() -> str:
    name = f"scopa_test_{secrets.token_hex(6)}"
    run_aside(_admin(f'CREATE DATABASE "{name}"'))
    return name


def _drop_database(name: str) -> None:
    run_aside(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def postgres_reachable() -> None:
    try:
        run_aside(_admin("SELECT 1"))
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        message = f"Postgres unreachable at {PG_HOST}: {error!r}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def new_postgres_database(postgres_reachable: None) -> Iterator[Callable[[], str]]:
    """Call it for the SQLAlchemy URL of a new, empty database."""
    created: list[str] = []

    def make() -> str:
        created.append(_create_database())
        return postgres_url_of(created[-1])

    yield make
    for name in created:
        _drop_database(name)


@pytest.fixture(scope="session")
def postgres_session_database(postgres_reachable: None) -> Iterator[str]:
    name = _create_database()
    try:
        run_aside(migrate(postgres_url_of(name)))
        yield name
    finally:
        _drop_database(name)


@pytest.fixture
def postgres_url(postgres_session_database: str) -> str:
    run_aside(_admin(f"TRUNCATE {', '.join(TABLES)}", database=postgres_session_database))
    return postgres_url_of(postgres_session_database)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite") / "template.db"
    run_aside(migrate(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    # A copy of a migrated file is much quicker than migrating each time; the engine
    # that migrated it is closed, so its write-ahead log is already folded in.
    path = tmp_path / "scopa.db"
    shutil.copyfile(sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_url"))


def sqlite_only() -> Any:
    """A module's ``database_url`` on SQLite alone, its ids keeping their ``[sqlite]``
    (``database_url = sqlite_only()``): for modules about reading a match, which the
    store contract suite (tests/contract) and tests/e2e (Postgres over the wire) already
    hold to one behaviour on both stores."""

    @pytest.fixture(params=["sqlite"])
    def database_url(sqlite_url: str) -> str:
        return sqlite_url

    return database_url
