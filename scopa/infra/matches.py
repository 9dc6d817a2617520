"""The matches, read one at a time, and changed through a unit of work.

On Postgres the move path's reads go to asyncpg itself, one statement and one round trip
each, outside any explicit transaction (``infra.statements``): a BEGIN and a COMMIT would
cost a round trip each, which is most of a request's CPU; asyncpg prepares each statement
once per connection, where SQLAlchemy would compile and cache-key it on every call.
"""

from __future__ import annotations

from sqlalchemy import and_, select

from scopa.infra.guard import reaching_database
from scopa.infra.match_reads import MATCHES, SEATS, record_of
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.infra.unit_of_work import SqlUnitOfWork
from scopa.service.ports import MatchRecord

_PG_GET = "SELECT state, created_at, due_at FROM matches WHERE id = $1"
_PG_GET_FOR_TOKEN = """
SELECT m.state, m.created_at, m.due_at, s.seat
FROM matches AS m LEFT JOIN seats AS s ON s.match_id = m.id AND s.token_hash = $2
WHERE m.id = $1"""


class SqlMatches(SqlStore):
    """``ai_only_pace``: seconds between the moves of a match of AI seats only
    (``infra.ai_turns``)."""

    def __init__(self, db: SqlDatabase, *, ai_only_pace: float = 0.0) -> None:
        super().__init__(db)
        self._ai_only_pace = ai_only_pace

    def unit_of_work(self) -> SqlUnitOfWork:
        return SqlUnitOfWork(self.db, self._ai_only_pace)

    @reaching_database
    async def get(self, match_id: str) -> MatchRecord | None:
        if self.db.postgres:
            row = await self.db.pg("fetchrow", _PG_GET, match_id, read=True)
        else:
            query = select(MATCHES.c.state, MATCHES.c.created_at, MATCHES.c.due_at).where(
                MATCHES.c.id == match_id
            )
            row = await self.db.read_one(query)
        return None if row is None else record_of(match_id, row)

    @reaching_database
    async def get_for_token(
        self, match_id: str, token_hash: str
    ) -> tuple[MatchRecord, int | None] | None:
        if self.db.postgres:
            row = await self.db.pg("fetchrow", _PG_GET_FOR_TOKEN, match_id, token_hash, read=True)
        else:
            query = (
                select(MATCHES.c.state, MATCHES.c.created_at, MATCHES.c.due_at, SEATS.c.seat)
                .select_from(MATCHES)
                .outerjoin(
                    SEATS, and_(SEATS.c.match_id == MATCHES.c.id, SEATS.c.token_hash == token_hash)
                )
                .where(MATCHES.c.id == match_id)
            )
            row = await self.db.read_one(query)
        return None if row is None else (record_of(match_id, row), row[3])
