"""The check every write that seats a player or challenges with one makes, in its own
transaction, against a deletion of that player at the same moment."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Table, select
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.infra.sql_store import SqlDatabase
from scopa.infra.tables import PlayerRow
from scopa.service.ports import PlayerGone

PLAYERS: Table = PlayerRow.__table__  # type: ignore[assignment]
LIVE = PLAYERS.c.deleted_at.is_(None)


async def hold_live(db: SqlDatabase, conn: AsyncConnection, handles: Iterable[str]) -> None:
    """PlayerGone unless each of ``handles`` is a live player. On Postgres their rows stay
    share-locked until the caller commits, and a deletion locks its player's row for
    update first: so either the deletion waits for this write and then finds the player
    busy, or this write waits for the deletion and then finds the player gone. SQLite has
    one writer at a time anyway."""
    wanted = sorted(set(handles))
    if not wanted:
        return
    query = select(PLAYERS.c.handle).where(PLAYERS.c.handle.in_(wanted), LIVE)
    if db.postgres:
        query = query.with_for_update(read=True)
    found = {row.handle for row in await conn.execute(query)}
    for handle in wanted:
        if handle not in found:
            raise PlayerGone(handle)
