"""Engines for Postgres (asyncpg) and SQLite (aiosqlite), tuned so an outage is a quick
error, and SQLite's single writer never turns into "database is locked"."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, nullcontext, suppress
from functools import partial
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import asyncpg
from sqlalchemy import event, exc, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import Pool
from sqlalchemy.util import await_only

from scopa.infra.statements import Lane, add_lane

CONNECT_TIMEOUT = 3.0
COMMAND_TIMEOUT = 5.0
SERVER_FIRST = 0.5
# Postgres connections per process, the engine's pool for transactions and a lane
# (infra.statements) for single statements: a request holds one only while a statement
# runs, so they serve many more requests at once; the rest queue for one.
POOL_SIZE = 10
LANE_SIZE = 10
CONNECTIONS = POOL_SIZE + LANE_SIZE
# URL options SQLAlchemy's asyncpg dialect takes for itself rather than passing on.
_SQLALCHEMY_OPTIONS = ("prepared_statement_cache_size", "prepared_statement_name_func")
# While a server that does not answer yet is waited for, how often to try again.
RETRY_SECONDS = 1.0
# How soon a connection that lost the race to switch a new SQLite file to WAL tries again.
WAL_RETRY_SECONDS = 0.01

log = logging.getLogger(__name__)

# Set on write connections; the SQLite "begin" hook reads it to take the write lock up
# front (BEGIN IMMEDIATE), so two transactions never both hold a read lock and then
# both wait to upgrade it.
_IMMEDIATE = "scopa_immediate"

# One writer at a time per SQLite pool: waiting here costs nothing, while waiting in
# SQLite's busy handler polls and holds a pooled connection.
_write_locks: WeakKeyDictionary[Pool, asyncio.Lock] = WeakKeyDictionary()


class DatabaseUnavailable(Exception):
    """The database cannot be reached or did not answer in time (a 503, not a 500)."""


class DatabaseUnusable(Exception):
    """The database cannot be used as configured, and waiting would not change that: a
    URL of another kind, a connection the server refuses (no such database, no such
    role), a SQLite file that cannot be opened or created where the URL puts it."""


# The plain forms, as in a DATABASE_URL, mean the async drivers: the only ones we use.
_ASYNC_DRIVERS = {
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
}
_EXPECTED = "postgresql+asyncpg://user:password@host:port/name or sqlite+aiosqlite:///path"


def database_url(url: str) -> URL:
    """``url`` parsed, the plain forms given their async driver; DatabaseUnusable for
    anything else. Its messages never quote the URL: it may hold a password."""
    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        raise DatabaseUnusable(f"the database URL does not parse: expected {_EXPECTED}") from None
    parsed = parsed.set(drivername=_ASYNC_DRIVERS.get(parsed.drivername, parsed.drivername))
    if parsed.drivername not in _ASYNC_DRIVERS.values():
        raise DatabaseUnusable(
            f"unsupported database URL scheme {parsed.drivername!r}: use {_EXPECTED}"
        )
    return parsed


def make_engine(url: str, *, command_timeout: float = COMMAND_TIMEOUT) -> AsyncEngine:
    """An engine for ``postgresql+asyncpg://...`` or ``sqlite+aiosqlite:///path`` (the
    driver may be left out). Its errors, which get logged, name a failed statement but not
    its values: a match's state holds every hand."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "postgresql":
        connect_args = {
            "timeout": CONNECT_TIMEOUT,
            # Postgres cancels a statement past the timeout itself, so a save that timed
            # out never commits afterwards (a save is one statement, outside any
            # transaction); asyncpg's own timeout, a little later, covers a server that
            # no longer answers at all.
            "server_settings": {"statement_timeout": str(round(command_timeout * 1000))},
            "command_timeout": command_timeout + SERVER_FIRST,
        }
        engine = create_async_engine(
            parsed,
            hide_parameters=True,
            # Every connection stays: a new one costs a connect (a TLS attempt included),
            # and then preparing each statement and looking up its types anew.
            pool_size=POOL_SIZE,
            max_overflow=0,
            pool_timeout=CONNECT_TIMEOUT + command_timeout,
            connect_args=connect_args,
        )
        event.listen(engine.sync_engine.pool, "checkout", _refuse_closed)
        _, options = engine.dialect.create_connect_args(engine.url)
        for sqlalchemy_only in _SQLALCHEMY_OPTIONS:
            options.pop(sqlalchemy_only, None)

        async def connect() -> asyncpg.Connection:
            return await asyncpg.connect(**options, **connect_args)

        add_lane(engine, Lane(connect, LANE_SIZE, CONNECT_TIMEOUT + command_timeout))
        return engine
    engine = create_async_engine(
        parsed,
        pool_pre_ping=True,
        hide_parameters=True,
        # SQLite's busy handler, from the connection's first statement on: a migration
        # queued behind others waits for all of them, longer than a request ever should.
        connect_args={"timeout": command_timeout},
    )
    event.listen(engine.sync_engine, "do_connect", _sqlite_private_file)
    event.listen(engine.sync_engine, "connect", partial(_sqlite_connect, patience=command_timeout))
    event.listen(engine.sync_engine, "begin", _sqlite_begin)
    return engine


def _refuse_closed(dbapi_connection: Any, _record: object, _proxy: object) -> None:
    # Instead of pool_pre_ping, whose BEGIN, ping and ROLLBACK cost three round trips per
    # checkout: asyncpg marks a connection closed as soon as the server ends it (backend
    # terminated, server stopped), so looking costs nothing. The pool then takes another
    # connection. One that dies unannounced fails its first statement instead: a read is
    # tried once more (infra.unit_of_work), a write answers 503.
    if dbapi_connection.driver_connection.is_closed():
        raise exc.DisconnectionError("the server closed this connection")


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def _sqlite_private_file(
    _dialect: object, _record: object, cargs: list[Any], cparams: dict[str, Any]
) -> None:
    # SQLite would create a missing database with the umask's mode (world-readable, as a
    # rule), and it gives the -wal and -shm files the database's own mode: made here
    # first, all three are for the owner's eyes only. A file that exists keeps its mode.
    path = cargs[0] if cargs else ":memory:"
    if cparams.get("uri") or path in ("", ":memory:"):
        return
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _sqlite_connect(dbapi_connection: Any, _record: object, *, patience: float) -> None:
    # The driver's own transaction handling skips BEGIN before SELECTs and cannot say
    # IMMEDIATE; the "begin" hook below takes over.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    _enter_wal(cursor, patience)
    for pragma in ("synchronous=NORMAL", "foreign_keys=ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _enter_wal(cursor: Any, patience: float) -> None:
    # A new file starts with a rollback journal, and switching it to WAL takes its
    # exclusive lock. Connections opening it together each hold a shared lock while they
    # wait for that one, and SQLite breaks the deadlock by failing one of them at once,
    # without its busy handler. The switch is kept in the file: the loser, trying again,
    # finds it made.
    deadline = time.monotonic() + patience
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except Exception as error:
            if not _sqlite_busy(error) or time.monotonic() >= deadline:
                raise
        await_only(asyncio.sleep(WAL_RETRY_SECONDS))


def _sqlite_begin(conn: Connection) -> None:
    immediate = conn.get_execution_options().get(_IMMEDIATE, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


@asynccontextmanager
async def write_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """One write transaction: committed on exit, rolled back on an exception."""
    lock: Any = nullcontext()
    if is_sqlite(engine):
        lock = _write_locks.setdefault(engine.sync_engine.pool, asyncio.Lock())
    async with lock, engine.connect() as conn:
        if is_sqlite(engine):
            await conn.execution_options(**{_IMMEDIATE: True})
        async with conn.begin():
            yield conn


_UNAVAILABLE: tuple[type[BaseException], ...] = (
    exc.OperationalError,  # refused, reset, timed out, "database is locked", no such file
    exc.InterfaceError,  # the connection was closed under us
    exc.TimeoutError,  # no pooled connection in time
    OSError,  # ConnectionRefusedError and friends, raised raw while connecting
    TimeoutError,  # asyncpg's connect and command timeouts
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,  # shutting down, terminated, cannot connect now
    asyncpg.InsufficientResourcesError,  # too many connections, disk full
    asyncpg.InterfaceError,
    # A connection the server ended, used before the event loop read the goodbye.
    asyncpg.InternalClientError,
)


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what it wraps, innermost last."""
    # SQLAlchemy wraps the driver's error, and its asyncpg adapter wraps it once more as
    # a generic DBAPI error: the telling type may sit anywhere down the chain.
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        orig = getattr(current, "orig", None)
        current = orig if isinstance(orig, BaseException) else current.__cause__


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` means the database is out of reach, rather than a bug or a rule."""
    return any(
        isinstance(cause, _UNAVAILABLE)
        or (isinstance(cause, exc.DBAPIError) and cause.connection_invalidated)
        for cause in _causes(error)
    )


def reason(error: BaseException) -> str:
    """What the driver or the system said, in one line, without SQLAlchemy's wrapping."""
    *_, innermost = _causes(error)
    code = innermost.errno if isinstance(innermost, OSError) else None
    if code is not None and code in errno.errorcode:
        return os.strerror(code)  # not asyncio's "Connect call failed ('127.0.0.1', 1)"
    lines = str(innermost).strip().splitlines()
    return lines[0] if lines else type(innermost).__name__  # TimeoutError says nothing more


def describe(url: URL) -> str:
    """The database ``url`` names, for messages: no user name, no password."""
    if url.get_backend_name() == "sqlite":
        return f"the SQLite database {Path(url.database or '').absolute()}"
    return f"the database {url.database!r} at {url.host or 'localhost'}:{url.port or 5432}"


async def reach(engine: AsyncEngine, wait_seconds: float = 0.0) -> None:
    """Connect once, as start-up does before anything else: DatabaseUnusable at once when
    waiting cannot help, DatabaseUnavailable when a Postgres server still does not answer
    after ``wait_seconds`` (in a deployment it often starts with us, or is restarting)."""
    if is_sqlite(engine):
        # Looked at first: SQLite's own error would only say "unable to open database
        # file", and aiosqlite's thread of a failed connection can outlive the event loop.
        problem = _sqlite_folder_problem(engine.url)
        if problem is not None:
            raise DatabaseUnusable(problem)
    deadline = time.monotonic() + wait_seconds
    waiting = False
    while True:
        try:
            async with engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return
        except Exception as error:
            refusal = _refusal(engine.url, error)
            if refusal is not None:
                raise DatabaseUnusable(refusal) from error
            left = deadline - time.monotonic()
            if left <= 0 or is_sqlite(engine):  # a file does not come up by itself
                waited = f" after {wait_seconds:g} s" if waiting else ""
                raise DatabaseUnavailable(
                    f"{describe(engine.url)} does not answer{waited}: {reason(error)}"
                ) from error
            if not waiting:
                log.warning(
                    "%s does not answer (%s); waiting up to %g s",
                    describe(engine.url),
                    reason(error),
                    wait_seconds,
                )
                waiting = True
            await asyncio.sleep(min(RETRY_SECONDS, left))


def _refusal(url: URL, error: BaseException) -> str | None:
    """Why ``error``, met while connecting, means the database cannot be used as
    configured; None when it only means that the database does not answer (yet)."""
    if url.get_backend_name() == "sqlite":
        return None if _sqlite_busy(error) else f"cannot open {describe(url)}: {reason(error)}"
    if is_unavailable(error):
        return None
    return f"{describe(url)} refused the connection: {reason(error)}"


def _sqlite_busy(error: BaseException) -> bool:
    # Another process holds the write lock: SQLITE_BUSY or SQLITE_LOCKED, extended or not.
    return any(
        isinstance(cause, sqlite3.Error) and cause.sqlite_errorcode & 0xFF in (5, 6)
        for cause in _causes(error)
    )


def _sqlite_folder_problem(url: URL) -> str | None:
    """What keeps SQLite from creating the file, and its journals, where ``url`` says."""
    if url.database in (None, "", ":memory:"):
        return None
    path = Path(url.database).absolute()
    folder = path.parent
    if path.is_dir():
        return f"cannot use {describe(url)}: it is a folder"
    if not folder.is_dir():
        missing = "is not a folder" if folder.exists() else "does not exist"
        return f"cannot create {describe(url)}: the folder {folder} {missing}"
    try:
        # The journals are new files next to the database, whether or not it exists.
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as cause:
        return f"cannot use {describe(url)}: the folder {folder} is not writable ({cause.strerror})"
    return None
