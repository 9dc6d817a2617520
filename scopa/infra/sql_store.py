"""What every SQL store shares: the engine, the clock, the NOTIFY channel and the calls
given up on (``infra.guard``), so that the stores split by capability still settle, and
notify, as one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Table, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import Executable

from scopa.infra.db import write_transaction
from scopa.infra.guard import Abandoning
from scopa.infra.statements import pg_statement

NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def merging_insert(table: Table, *, postgres: bool) -> postgresql.Insert | sqlite.Insert:
    """An INSERT in the database's own dialect, which can say what a conflict does
    (``on_conflict_do_nothing``, ``on_conflict_do_update``)."""
    return postgresql.insert(table) if postgres else sqlite.insert(table)


class SqlDatabase(Abandoning):
    """One database as the stores use it. ``notify`` (Postgres only) names the channel
    each change's notice goes out on when it commits, for ``PostgresEventBus``
    listeners; ``clock`` (unix seconds) is injectable for the leases and timeouts."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        notify: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        if notify is not None and not self.postgres:
            raise ValueError("NOTIFY needs Postgres")
        self.notify = notify
        self.clock = clock

    def insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        return merging_insert(table, postgres=self.postgres)

    async def read(self, statement: Executable) -> list[Any]:
        """The rows of one statement, on a connection of its own."""
        async with self.engine.connect() as conn:
            return list((await conn.execute(statement)).all())

    async def read_one(self, statement: Executable) -> Any:
        """The row of a statement that gives at most one; None when it gives none."""
        rows = await self.read(statement)
        return rows[0] if rows else None

    async def write(self, statement: Executable) -> CursorResult[Any]:
        """One statement in a write transaction of its own."""
        async with write_transaction(self.engine) as conn:
            return await conn.execute(statement)

    async def write_row(self, statement: Executable, values: dict[str, Any]) -> Any:
        """The row a statement of named parameters RETURNING at most one gives, bound to
        ``values`` and run in a write transaction of its own; None when there is none."""
        async with write_transaction(self.engine) as conn:
            return (await conn.execute(statement, values)).one_or_none()

    async def pg(self, fetch: str, query: str, *args: object, read: bool) -> Any:
        """One statement on Postgres, outside any transaction (``infra.statements``)."""
        return await pg_statement(self.engine, fetch, query, *args, read=read)

    async def announce(self, conn: AsyncConnection, payload: str) -> None:
        """In the caller's transaction: ``payload`` goes out on the channel at commit."""
        if self.notify is not None:
            await conn.execute(NOTIFY, {"channel": self.notify, "payload": payload})


class SqlStore:
    """A store over ``db``; the calls its guarded methods give up on are the database's."""

    def __init__(self, db: SqlDatabase) -> None:
        self.db = db

    def abandon(self, call: asyncio.Future[Any]) -> None:
        self.db.abandon(call)
