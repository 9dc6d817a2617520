"""What players did (``match_players``, ``ratings``, ``rated_matches``): read by anyone,
written only inside the unit of work that stores a match (``seat_players``,
``finished``), so that a seat, a result and a rating stand or fall with the match."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Table, and_, case, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.domain.glicko import Rating
from scopa.domain.match import MatchState
from scopa.domain.rated import FORMATS, PROVISIONAL, counts, format_of, new_ratings, result_of
from scopa.infra.guard import reaching_database
from scopa.infra.live_players import PLAYERS, hold_live
from scopa.infra.match_reads import MATCHES, record_of
from scopa.infra.players import MATCH_PLAYERS, player_of
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.infra.tables import RatedMatchRow, RatingRow
from scopa.service.ports import Counts, MatchRecord, Player, RatedGame, StoredRating

RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
RATED: Table = RatedMatchRow.__table__  # type: ignore[assignment]


class SqlStandings(SqlStore):
    @reaching_database
    async def matches(
        self, handle: str, status: str | None, limit: int, after: tuple[float, str] | None
    ) -> list[tuple[MatchRecord, int]]:
        query = (
            select(
                MATCHES.c.state,
                MATCHES.c.created_at,
                MATCHES.c.due_at,
                MATCHES.c.id,
                MATCH_PLAYERS.c.seat,
            )
            .join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
            .where(MATCH_PLAYERS.c.handle == handle)
            .order_by(MATCH_PLAYERS.c.created_at.desc(), MATCH_PLAYERS.c.match_id.desc())
            .limit(limit)
        )
        if status is not None:
            query = query.where(MATCHES.c.status == status)
        if after is not None:
            created, match_id = after
            query = query.where(
                or_(
                    MATCH_PLAYERS.c.created_at < created,
                    and_(
                        MATCH_PLAYERS.c.created_at == created, MATCH_PLAYERS.c.match_id < match_id
                    ),
                )
            )
        return [(record_of(row.id, row), row.seat) for row in await self.db.read(query)]

    @reaching_database
    async def counts(self, handle: str) -> Counts:
        query = (
            select(MATCH_PLAYERS.c.result, func.count())
            .where(MATCH_PLAYERS.c.handle == handle, MATCH_PLAYERS.c.result.in_(("won", "lost")))
            .group_by(MATCH_PLAYERS.c.result)
        )
        by = {row[0]: row[1] for row in await self.db.read(query)}
        return Counts(sum(by.values()), by.get("won", 0), by.get("lost", 0))

    @reaching_database
    async def ratings(self, handle: str) -> list[StoredRating]:
        order = case({f: i for i, f in enumerate(FORMATS)}, value=RATINGS.c.format)
        query = select(RATINGS).where(RATINGS.c.handle == handle).order_by(order)
        return [_rating_of(row) for row in await self.db.read(query)]

    @reaching_database
    async def rating_history(self, handle: str, format: str, limit: int) -> list[RatedGame]:
        query = (
            select(MATCH_PLAYERS.c.match_id, MATCH_PLAYERS.c.finished_at, MATCH_PLAYERS.c.rating)
            .where(MATCH_PLAYERS.c.handle == handle, MATCH_PLAYERS.c.format == format)
            .order_by(MATCH_PLAYERS.c.finished_at.desc(), MATCH_PLAYERS.c.match_id.desc())
            .limit(limit)
        )
        rows = await self.db.read(query)
        return [RatedGame(r.match_id, r.finished_at, r.rating) for r in reversed(rows)]

    @reaching_database
    async def origins(self, handles: Sequence[str]) -> dict[str, str]:
        query = select(PLAYERS.c.handle, PLAYERS.c.origin).where(PLAYERS.c.handle.in_(handles))
        return {row.handle: row.origin for row in await self.db.read(query)}

    @reaching_database
    async def leaderboard(
        self, format: str, provisional: bool, limit: int, after: tuple[float, str] | None
    ) -> list[tuple[Player, StoredRating]]:
        query = (
            select(
                PLAYERS.c.handle,
                PLAYERS.c.name,
                PLAYERS.c.kind,
                PLAYERS.c.joined_at,
                PLAYERS.c.origin,
                RATINGS.c.format,
                RATINGS.c.rating,
                RATINGS.c.deviation,
                RATINGS.c.volatility,
                RATINGS.c.games,
            )
            .join(PLAYERS, PLAYERS.c.handle == RATINGS.c.handle)
            .where(
                RATINGS.c.format == format,
                RATINGS.c.established == (not provisional),
                PLAYERS.c.deleted_at.is_(None),
            )
            .order_by(RATINGS.c.rating.desc(), RATINGS.c.handle)
            .limit(limit)
        )
        if after is not None:
            rating, handle = after
            query = query.where(
                or_(
                    RATINGS.c.rating < rating,
                    and_(RATINGS.c.rating == rating, RATINGS.c.handle > handle),
                )
            )
        return [(player_of(row), _rating_of(row)) for row in await self.db.read(query)]


def _rating_of(row: Any) -> StoredRating:
    return StoredRating(row.format, row.rating, row.deviation, row.volatility, row.games)


async def seat_players(
    db: SqlDatabase,
    conn: AsyncConnection,
    match_id: str,
    created_at: float,
    state: MatchState,
    seats: Iterable[int],
) -> None:
    """Rows for those of ``seats`` that a player holds in ``state``; PlayerGone when one
    of those players is deleted, or being deleted (``live_players``). A rematch's seat
    reserved for a player has its row from the rematch's creation on (the player's list
    shows the rematch waiting for it), so the claim that seats that same player finds its
    row written and keeps it."""
    rows = [
        {"match_id": match_id, "seat": i, "handle": state.seats[i].player, "created_at": created_at}
        for i in seats
        if state.seats[i].player is not None
    ]
    if rows:
        await hold_live(db, conn, (str(row["handle"]) for row in rows))
        kept = db.insert(MATCH_PLAYERS).on_conflict_do_nothing(index_elements=["match_id", "seat"])
        await conn.execute(kept, rows)


async def finished(
    db: SqlDatabase, conn: AsyncConnection, match_id: str, state: MatchState
) -> None:
    """In the finish's transaction: each player's result and, for a rated match that
    counts, the new ratings, once (``rated_matches`` keyed by the match)."""
    now = db.clock()
    for i, seat in enumerate(state.seats):
        if seat.player is not None:
            await conn.execute(
                update(MATCH_PLAYERS)
                .where(MATCH_PLAYERS.c.match_id == match_id, MATCH_PLAYERS.c.seat == i)
                .values(result=result_of(state, i), finished_at=now)
            )
    format = format_of(state.players, state.rules.target)
    if format is None or not counts(state):
        return
    claimed = await conn.execute(
        db.insert(RATED)
        .values(match_id=match_id, rated_at=db.clock())
        .on_conflict_do_nothing()
        .returning(RATED.c.match_id)
    )
    if claimed.first() is None:
        return  # rated already
    handles = sorted({s.player for s in state.seats if s.player is not None})
    if db.postgres:
        # Two matches of one player finishing at once rate it one after the other; in
        # handle order, so that two such transactions cannot wait on each other.
        for handle in handles:
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"rating:{handle}"}
            )
    rows = await conn.execute(
        select(RATINGS).where(RATINGS.c.handle.in_(handles), RATINGS.c.format == format)
    )
    stored = {row.handle: row for row in rows}
    current = {h: Rating(r.rating, r.deviation, r.volatility) for h, r in stored.items()}
    for handle, rating in new_ratings(state, current).items():
        games = stored[handle].games + 1 if handle in stored else 1
        values = {
            "rating": rating.rating,
            "deviation": rating.deviation,
            "volatility": rating.volatility,
            "games": games,
            "established": rating.deviation <= PROVISIONAL,
        }
        upsert = db.insert(RATINGS).values(handle=handle, format=format, **values)
        await conn.execute(
            upsert.on_conflict_do_update(index_elements=["handle", "format"], set_=values)
        )
        await conn.execute(
            update(MATCH_PLAYERS)
            .where(MATCH_PLAYERS.c.match_id == match_id, MATCH_PLAYERS.c.handle == handle)
            .values(format=format, rating=rating.rating)
        )
