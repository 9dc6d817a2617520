"""The read side of the matches: along a match's log, and across matches (the lobby, the
deadlines, the seats' tokens, the figures)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, func, or_, select, text

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.infra.codec import decode_event, decode_state
from scopa.infra.guard import reaching_database
from scopa.infra.sql_store import SqlStore
from scopa.infra.tables import EventRow, MatchRow, SeatRow
from scopa.service.ports import MatchRecord

MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]


def record_of(match_id: str, row: Any) -> MatchRecord:
    """From (state, created_at, due_at, ...): an asyncpg record or a SQLAlchemy row."""
    return MatchRecord(id=match_id, state=decode_state(row[0]), created_at=row[1], due_at=row[2])


class SqlMatchReads(SqlStore):
    @reaching_database
    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        query = (
            select(EVENTS.c.payload)
            .where(EVENTS.c.match_id == match_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        return [decode_event(row.payload) for row in await self.db.read(query)]

    @reaching_database
    async def initial(self, match_id: str) -> MatchState | None:
        found = await self.db.read(select(MATCHES.c.initial).where(MATCHES.c.id == match_id))
        return decode_state(found[0].initial) if found else None

    @reaching_database
    async def waiting(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        return await self._listed(MATCHES.c.has_open_seat, limit, after, newest_first=False)

    @reaching_database
    async def active(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        return await self._listed(MATCHES.c.status == "active", limit, after, newest_first=True)

    async def _listed(
        self, which: Any, limit: int, after: tuple[float, str] | None, *, newest_first: bool
    ) -> list[MatchRecord]:
        """A page of the matches ``which`` selects, in (created_at, id) order or its
        reverse, past a lobby cursor."""
        created, ident = MATCHES.c.created_at, MATCHES.c.id
        query = (
            select(ident, MATCHES.c.state, created, MATCHES.c.due_at)
            .where(which)
            .order_by(*((created.desc(), ident.desc()) if newest_first else (created, ident)))
            .limit(limit)
        )
        if after is not None:
            at, match_id = after
            if newest_first:
                query = query.where(or_(created < at, and_(created == at, ident < match_id)))
            else:
                query = query.where(or_(created > at, and_(created == at, ident > match_id)))
        return [record_of(row.id, row[1:]) for row in await self.db.read(query)]

    @reaching_database
    async def seat_tokens(self, match_id: str) -> dict[int, str]:
        query = select(SEATS.c.seat, SEATS.c.token_hash).where(SEATS.c.match_id == match_id)
        return {row.seat: row.token_hash for row in await self.db.read(query)}

    @reaching_database
    async def due(self, now: float, limit: int) -> list[str]:
        query = (
            select(MATCHES.c.id)
            .where(MATCHES.c.due_at <= now)
            .order_by(MATCHES.c.due_at)
            .limit(limit)
        )
        return [row.id for row in await self.db.read(query)]

    @reaching_database
    async def token_known(self, token_hash: str) -> bool:
        query = select(SEATS.c.seat).where(SEATS.c.token_hash == token_hash).limit(1)
        return bool(await self.db.read(query))

    @reaching_database
    async def active_count(self) -> int:
        # No index on status: a scan of the matches' rows, once a scrape (seconds apart).
        query = select(func.count()).select_from(MATCHES).where(MATCHES.c.status == "active")
        return int((await self.db.read(query))[0][0])

    @reaching_database
    async def ping(self) -> None:
        await self.db.read(text("SELECT 1"))
