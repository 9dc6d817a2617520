"""Alembic environment. ``infra.migrate`` hands over an open connection (holding the
migration lock); without one, as from the ``alembic`` command, it connects itself."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from scopa.infra.db import make_engine
from scopa.infra.tables import Base

config = context.config
target_metadata = Base.metadata


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
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


connection = config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    asyncio.run(run_async_migrations(config.get_main_option("sqlalchemy.url") or ""))
