"""Bring a database's schema to the newest migration, safely from several processes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.infra.db import (
    DatabaseUnavailable,
    describe,
    is_unavailable,
    make_engine,
    reach,
    reason,
    write_transaction,
)
from scopa.infra.tables import Base


def _migrations_folder() -> Path:
    """Found, not imported: Alembic runs the migrations from their folder, and infra
    needs nothing else of them."""
    spec = importlib.util.find_spec("scopa.migrations")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the migrations package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


# Waiting for another process's migration is normal; a 5 s command timeout is not enough.
MIGRATION_TIMEOUT = 300.0
# pg_advisory_xact_lock key, an arbitrary constant shared by every scopa process.
LOCK_KEY = 0x5C0BA


def alembic_config(url: str) -> Config:
    """The Alembic configuration, built here so that it works from an installed package
    (there is no alembic.ini): for ``alembic.command`` calls such as ``revision``. The
    migrations import no project code; autogenerate gets the tables from here."""
    config = Config()
    config.attributes["target_metadata"] = Base.metadata
    config.set_main_option("script_location", str(_migrations_folder()))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


async def migrate(url: str, *, wait_seconds: float = 0.0) -> None:
    """``alembic upgrade head`` in one transaction; on Postgres under an advisory lock,
    so processes starting together take turns and the later ones find nothing to do.
    SQLite gets the same from BEGIN IMMEDIATE.

    A Postgres server that does not answer yet is waited for up to ``wait_seconds``.
    What keeps the migration from starting is DatabaseUnusable or DatabaseUnavailable,
    with a one-line message (``infra.db.reach``)."""
    engine = make_engine(url, command_timeout=MIGRATION_TIMEOUT)
    try:
        await reach(engine, wait_seconds)
        await _upgrade_head(engine, alembic_config(url))
    finally:
        await engine.dispose()


async def _upgrade_head(engine: AsyncEngine, config: Config) -> None:
    try:
        async with write_transaction(engine) as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            await conn.run_sync(_upgrade, config)
    except Exception as error:
        if is_unavailable(error):
            raise DatabaseUnavailable(
                f"{describe(engine.url)} stopped answering during the migration: {reason(error)}"
            ) from error
        raise


def _upgrade(connection: Connection, config: Config) -> None:
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
