"""The limits' counts in the database, so that every process sees the same ones.

Rate limits (``api.ratelimit``) count requests in fixed windows, one row per limit, client
and window, taken in one statement: an upsert that adds one only while the row is under
its cap, and returns the count (``INSERT ... ON CONFLICT DO UPDATE ... WHERE ...
RETURNING``, on Postgres and SQLite alike). Several limits on one request are one
statement too; when one of them refuses, what the others took is given back.

Open streams and long polls (``api.streams``) are leases: a row each, inserted only
while the client and the match are under their caps (one statement), deleted when the
stream ends. This process renews its leases every third of ``lease_seconds`` (the
SCOPA_STREAM_LEASE_SECONDS setting); a process that dies leaves leases that lapse within
it. Two opens racing in one instant may both pass
the last slot (each count is read before the other's insert commits): caps are bounds
against crowding, not exact to the unit.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import (
    Double,
    String,
    Table,
    and_,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql import Executable

from scopa.infra.db import DatabaseUnavailable, is_sqlite, write_transaction
from scopa.infra.guard import Abandoning, reaching_database
from scopa.infra.statements import pg_statement
from scopa.infra.tables import LimitCountRow, StreamLeaseRow
from scopa.service.limits import Window

Key = tuple[str, str, int]  # a window: (name, client, period)
COUNTS: Table = LimitCountRow.__table__  # type: ignore[assignment]
LEASES: Table = StreamLeaseRow.__table__  # type: ignore[assignment]

# docs/api.md: slots held by a process free within 30 s of its death.
LEASE_SECONDS = 30.0
ENDED_WINDOW_KEPT = 60.0

log = logging.getLogger(__name__)

# On Postgres the statements of a limited request go to asyncpg itself, one round trip
# each, as the move path does (infra.unit_of_work): SQLAlchemy's per-call work and an
# autocommit connection's set-up cost several times the statement. The windows come as
# arrays, the same statements as the SQLAlchemy ones below, which SQLite runs.
_PG_WINDOWS = """unnest($1::varchar[], $2::varchar[], $3::integer[], $4::integer[],
    $5::double precision[]) AS w (name, client, period, cap, ends_at)"""
_PG_TAKE = f"""
INSERT INTO limit_counts AS c (name, client, period, used, cap, ends_at)
SELECT w.name, w.client, w.period, 1, w.cap, w.ends_at FROM {_PG_WINDOWS}
ON CONFLICT (name, client, period) DO UPDATE SET used = c.used + 1
WHERE c.used < excluded.cap
RETURNING c.name, c.client, c.period, c.used"""
_PG_LOOK = f"""
SELECT c.name, c.client, c.period, c.used FROM limit_counts AS c JOIN {_PG_WINDOWS}
ON (c.name, c.client, c.period) = (w.name, w.client, w.period)"""
_PG_GIVE_BACK = f"""
UPDATE limit_counts AS c SET used = c.used - 1 FROM {_PG_WINDOWS}
WHERE (c.name, c.client, c.period) = (w.name, w.client, w.period)"""
# $6: the client's cap, $7: the match's (0: none), $8: now.
_PG_HOLD = """
INSERT INTO stream_leases (id, process, client, match_id, expires_at)
SELECT $1::varchar, $2::varchar, $3::varchar, $4::varchar, $5::double precision
WHERE ($6 = 0 OR (SELECT count(*) FROM stream_leases
                  WHERE client = $3 AND expires_at > $8) < $6)
  AND ($7 = 0 OR (SELECT count(*) FROM stream_leases
                  WHERE match_id = $4 AND expires_at > $8) < $7)
RETURNING id"""
_PG_RELEASE = "DELETE FROM stream_leases WHERE id = ANY($1::varchar[])"
_LEASE_TYPES = (String, String, String, String, Double)


class SqlLimits(Abandoning):
    """``service.limits.Counts`` and ``Slots`` on the database."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], float] = time.time,
        lease_seconds: float = LEASE_SECONDS,
    ) -> None:
        super().__init__()
        self._engine = engine
        self._clock = clock
        self.lease_seconds = lease_seconds
        self.process = uuid.uuid4().hex  # this process's leases
        self._postgres = not is_sqlite(engine)
        self._unreleased: set[str] = set()

    async def _run(self, statement: Executable) -> list[tuple[Any, ...]]:
        """One statement, committed; the rows it returns. On Postgres it commits by itself
        (no BEGIN and COMMIT round trips); SQLite's single writer takes its write lock."""
        if is_sqlite(self._engine):
            async with write_transaction(self._engine) as conn:
                result = await conn.execute(statement)
                return [tuple(row) for row in result] if result.returns_rows else []
        async with self._engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            result = await conn.execute(statement)
            return [tuple(row) for row in result] if result.returns_rows else []

    @reaching_database
    async def count(self, windows: Sequence[Window], *, take: bool) -> tuple[bool, list[int]]:
        keys = [(w.name, w.client, w.period) for w in windows]
        caps = [w.cap for w in windows]
        if not take:
            found = await self._counted(windows)
            used = [found.get(key, 0) for key in keys]
            return all(n < cap for n, cap in zip(used, caps, strict=True)), used
        taken = await self._take(windows)
        if len(taken) == len(keys):
            return True, [taken[key] for key in keys]
        if taken:
            await self._give_back([w for w in windows if (w.name, w.client, w.period) in taken])
        return False, [
            taken[key] - 1 if key in taken else cap for key, cap in zip(keys, caps, strict=True)
        ]

    async def _pg(self, query: str, windows: Sequence[Window], *, read: bool) -> dict[Key, int]:
        arrays = (
            [w.name for w in windows],
            [w.client for w in windows],
            [w.period for w in windows],
            [w.cap for w in windows],
            [w.ends_at for w in windows],
        )
        rows = await pg_statement(self._engine, "fetch", query, *arrays, read=read)
        return {(r[0], r[1], r[2]): int(r[3]) for r in rows}

    async def _counted(self, windows: Sequence[Window]) -> dict[Key, int]:
        if self._postgres:
            return await self._pg(_PG_LOOK, windows, read=True)
        query = select(COUNTS.c.name, COUNTS.c.client, COUNTS.c.period, COUNTS.c.used)
        async with self._engine.connect() as conn:
            rows = await conn.execute(query.where(_keyed(windows)))
            return {(r[0], r[1], r[2]): int(r[3]) for r in rows}

    async def _take(self, windows: Sequence[Window]) -> dict[Key, int]:
        """One more in each window under its cap; the counts of those it counted in."""
        if self._postgres:
            return await self._pg(_PG_TAKE, windows, read=False)
        upsert = sqlite.insert(COUNTS).values(
            [
                {
                    "name": w.name,
                    "client": w.client,
                    "period": w.period,
                    "used": 1,
                    "cap": w.cap,
                    "ends_at": w.ends_at,
                }
                for w in windows
            ]
        )
        upsert_counting = upsert.on_conflict_do_update(
            index_elements=[COUNTS.c.name, COUNTS.c.client, COUNTS.c.period],
            set_={"used": COUNTS.c.used + 1},
            where=COUNTS.c.used < upsert.excluded.cap,
        ).returning(COUNTS.c.name, COUNTS.c.client, COUNTS.c.period, COUNTS.c.used)
        return {(r[0], r[1], r[2]): int(r[3]) for r in await self._run(upsert_counting)}

    async def _give_back(self, windows: Sequence[Window]) -> None:
        if self._postgres:
            await self._pg(_PG_GIVE_BACK, windows, read=False)
        else:
            await self._run(update(COUNTS).where(_keyed(windows)).values(used=COUNTS.c.used - 1))

    @reaching_database
    async def hold(
        self, client: str, match_id: str | None, per_client: int, per_match: int
    ) -> str | None:
        """A lease for a stream (``match_id``) or a long poll (None) of ``client``, if
        both are under their caps (0: no cap); its id, or None when refused."""
        now = self._clock()
        lease = uuid.uuid4().hex
        row = (lease, self.process, client, match_id, now + self.lease_seconds)
        per_match = per_match if match_id is not None else 0
        if self._postgres:
            query = _PG_HOLD
            held = await pg_statement(
                self._engine, "fetch", query, *row, per_client, per_match, now, read=False
            )
            return lease if held else None
        live = LEASES.c.expires_at > now
        under = []
        if per_client:
            counted = select(func.count()).where(LEASES.c.client == client, live)
            under.append(counted.scalar_subquery() < per_client)
        if per_match:
            counted = select(func.count()).where(LEASES.c.match_id == match_id, live)
            under.append(counted.scalar_subquery() < per_match)
        columns: list[Any] = [
            literal(value, kind) for value, kind in zip(row, _LEASE_TYPES, strict=True)
        ]
        values = select(*columns).where(*under)
        statement = (
            insert(LEASES)
            .from_select(["id", "process", "client", "match_id", "expires_at"], values)
            .returning(LEASES.c.id)
        )
        return lease if await self._run(statement) else None

    async def release(self, lease: str) -> None:
        """Let go of a lease; if the database does not answer, the next renewal does."""
        try:
            await self._delete(lease)
        except DatabaseUnavailable:
            self._unreleased.add(lease)

    @reaching_database
    async def _delete(self, *leases: str) -> None:
        if self._postgres:
            await pg_statement(self._engine, "execute", _PG_RELEASE, list(leases), read=False)
        else:
            await self._run(delete(LEASES).where(LEASES.c.id.in_(leases)))

    @reaching_database
    async def renew(self) -> None:
        """Keep this process's leases alive; drop lapsed leases and ended windows."""
        now = self._clock()
        if self._unreleased:
            unreleased = tuple(self._unreleased)
            await self._delete(*unreleased)
            self._unreleased.difference_update(unreleased)
        await self._run(
            update(LEASES)
            .where(LEASES.c.process == self.process)
            .values(expires_at=now + self.lease_seconds)
        )
        await self._run(delete(LEASES).where(LEASES.c.expires_at <= now))
        # A window is kept a while past its end, for a process whose clock is behind.
        await self._run(delete(COUNTS).where(COUNTS.c.ends_at <= now - ENDED_WINDOW_KEPT))

    async def keep_renewing(self) -> None:
        while True:
            # Three renewals per lease: one or two may miss a database that is down a while.
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self.renew()
            except DatabaseUnavailable:
                log.warning("stream leases not renewed: the database does not answer")


def _keyed(windows: Sequence[Window]) -> Any:
    return or_(
        *(
            and_(COUNTS.c.name == w.name, COUNTS.c.client == w.client, COUNTS.c.period == w.period)
            for w in windows
        )
    )
