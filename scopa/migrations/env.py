"""Alembic environment. ``infra.migrate`` hands over an open connection (holding the
migration lock) and the tables' metadata; without them, as from the ``alembic`` command,
it connects itself.

It imports no project code, as no revision does: what it needs of the engine is written
out here, so that a change to infra cannot change how an old revision runs."""

from __future__ import annotations

import asyncio
import os
from contextlib import suppress
from typing import Any

from alembic import context
from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import create_async_engine

config = context.config
# Only autogenerate (``alembic check``, ``revision --autogenerate``) compares with the
# models, and infra owns them: ``infra.migrate.alembic_config`` passes them in. Upgrades
# and downgrades run the revisions as written and need none.
target_metadata = config.attributes.get("target_metadata")

ASYNC_DRIVERS = {"postgresql": "postgresql+asyncpg", "sqlite": "sqlite+aiosqlite"}
# SQLite's busy handler: a migration may wait behind a server's writes.
SQLITE_PATIENCE = 300.0


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations(url: str) -> None:
    parsed = make_url(url)
    parsed = parsed.set(drivername=ASYNC_DRIVERS.get(parsed.drivername, parsed.drivername))
    sqlite = parsed.get_backend_name() == "sqlite"
    # A revision's rows may hold seat tokens: a failed statement is logged without them.
    engine = create_async_engine(
        parsed,
        hide_parameters=True,
        connect_args={"timeout": SQLITE_PATIENCE} if sqlite else {},
    )
    if sqlite:
        event.listen(engine.sync_engine, "do_connect", _sqlite_private_file)
        event.listen(engine.sync_engine, "connect", _sqlite_connect)
        event.listen(engine.sync_engine, "begin", _sqlite_begin)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


def _sqlite_private_file(
    _dialect: object, _record: object, cargs: list[Any], cparams: dict[str, Any]
) -> None:
    # A database made here holds seat tokens soon: for the owner's eyes only, as the
    # server makes it (SQLite gives the -wal and -shm files the database's mode).
    path = cargs[0] if cargs else ":memory:"
    if cparams.get("uri") or path in ("", ":memory:"):
        return
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _sqlite_connect(dbapi_connection: Any, _record: object) -> None:
    # The driver would run DDL outside any transaction; the "begin" hook below opens one,
    # so that a revision applies whole or not at all, as on Postgres.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    for pragma in ("journal_mode=WAL", "foreign_keys=ON"):
        cursor.execute(f"PRAGMA {pragma}")
    cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    # IMMEDIATE: the write lock first, so a migration never fails half way on a lock.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


connection = config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    asyncio.run(run_async_migrations(config.get_main_option("sqlalchemy.url") or ""))
