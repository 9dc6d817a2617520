"""Registered players and their tokens (``players``, ``player_tokens``)."""

from __future__ import annotations

import hmac
from typing import Any

from sqlalchemy import Table, and_, delete, exists, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.infra import challenges
from scopa.infra.answers import keep_answer
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.live_players import LIVE, PLAYERS
from scopa.infra.match_reads import MATCHES, SEATS
from scopa.infra.notify import notice
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.infra.tables import MatchPlayerRow, PlayerTokenRow
from scopa.service.handles import handle_key
from scopa.service.ids import revoked_key
from scopa.service.ports import (
    Answer,
    HandleTaken,
    Player,
    PlayerBusy,
    PlayerToken,
    TooManyTokens,
)

TOKENS: Table = PlayerTokenRow.__table__  # type: ignore[assignment]
MATCH_PLAYERS: Table = MatchPlayerRow.__table__  # type: ignore[assignment]

# A token's last use is written at most this often: a bot's every request is no write.
TOUCH_SECONDS = 60.0
_PLAYER = (PLAYERS.c.handle, PLAYERS.c.name, PLAYERS.c.kind, PLAYERS.c.joined_at, PLAYERS.c.origin)


def player_of(row: Any) -> Player:
    return Player(row.handle, row.name, row.kind, row.joined_at, row.origin)


def _token_of(row: Any) -> PlayerToken:
    return PlayerToken(row.id, row.handle, row.label, row.created_at, row.last_used_at)


class SqlPlayers(SqlStore):
    @reaching_database
    async def register(
        self,
        player: Player,
        handle_key: str,
        token: PlayerToken,
        token_hash: str,
        answer: Answer | None = None,
    ) -> None:
        try:
            async with write_transaction(self.db.engine) as conn:
                await conn.execute(
                    PLAYERS.insert().values(
                        handle=player.handle,
                        handle_key=handle_key,
                        name=player.name,
                        kind=player.kind,
                        origin=player.origin,
                        joined_at=player.joined_at,
                    )
                )
                await conn.execute(TOKENS.insert().values(_token_row(token, token_hash)))
                if answer is not None:
                    await keep_answer(conn, *answer, player.joined_at)
        except IntegrityError as error:
            raise HandleTaken(f"the handle {player.handle!r} is taken") from error

    @reaching_database
    async def player(self, handle: str) -> Player | None:
        # The handle itself first: players registered before revision 0011 may read as
        # one another, and each keeps its own page.
        query = (
            select(*_PLAYER)
            .where(or_(PLAYERS.c.handle == handle, PLAYERS.c.handle_key == handle_key(handle)))
            .where(LIVE)
            .order_by(PLAYERS.c.handle != handle)
            .limit(1)
        )
        row = await self.db.read_one(query)
        return None if row is None else player_of(row)

    @reaching_database
    async def authenticate(self, token_hash: str, now: float) -> Player | None:
        query = (
            select(*_PLAYER, TOKENS.c.id, TOKENS.c.token_hash, TOKENS.c.last_used_at)
            .join(TOKENS, TOKENS.c.handle == PLAYERS.c.handle)
            .where(TOKENS.c.token_hash == token_hash, LIVE)
        )
        row = await self.db.read_one(query)
        # The lookup is by the hash, which says nothing of how near a guess came to a
        # token; the hash found is still compared in constant time before it is trusted.
        if row is None or not hmac.compare_digest(row.token_hash, token_hash):
            return None
        if row.last_used_at is None or now - row.last_used_at >= TOUCH_SECONDS:
            await self.db.write(
                update(TOKENS).where(TOKENS.c.id == row.id).values(last_used_at=now)
            )
        return player_of(row)

    @reaching_database
    async def tokens(self, handle: str) -> list[PlayerToken]:
        query = select(TOKENS).where(TOKENS.c.handle == handle).order_by(TOKENS.c.created_at)
        return [_token_of(row) for row in await self.db.read(query)]

    @reaching_database
    async def add_token(
        self, token: PlayerToken, token_hash: str, cap: int, answer: Answer | None = None
    ) -> None:
        async with write_transaction(self.db.engine) as conn:
            if self.db.postgres:
                # Two new tokens at once must not both take the last place.
                await conn.execute(
                    select(PLAYERS.c.handle)
                    .where(PLAYERS.c.handle == token.handle)
                    .with_for_update()
                )
            held = await conn.execute(select(func.count()).where(TOKENS.c.handle == token.handle))
            if held.scalar_one() >= cap:
                raise TooManyTokens(f"a player holds at most {cap} live tokens")
            await conn.execute(TOKENS.insert().values(_token_row(token, token_hash)))
            if answer is not None:
                await keep_answer(conn, *answer, token.created_at)

    @reaching_database
    async def revoke(self, handle: str, token_id: str) -> str | None:
        async with write_transaction(self.db.engine) as conn:
            revoked = await _revoked(
                self.db, conn, and_(TOKENS.c.id == token_id, TOKENS.c.handle == handle)
            )
        return revoked[0] if revoked else None

    @reaching_database
    async def delete(self, handle: str, now: float) -> list[tuple[str, int]]:
        playing = exists().where(
            MATCH_PLAYERS.c.handle == handle,
            MATCHES.c.id == MATCH_PLAYERS.c.match_id,
            MATCHES.c.status.in_(("waiting", "active")),
        )
        async with write_transaction(self.db.engine) as conn:
            if self.db.postgres:
                # A write seating the player share-locks this row (infra.live_players):
                # either it committed before, and the player is busy, or it waits and then
                # finds the player gone.
                await conn.execute(
                    select(PLAYERS.c.handle).where(PLAYERS.c.handle == handle).with_for_update()
                )
            if (await conn.execute(select(playing))).scalar_one():
                raise PlayerBusy("the player holds a seat in a match waiting or being played")
            revoked = await _revoked(self.db, conn, TOKENS.c.handle == handle)
            # Its seat tokens too: a seat of a deleted player reads and asks nothing more.
            held = select(MATCH_PLAYERS.c.seat).where(
                MATCH_PLAYERS.c.handle == handle,
                MATCH_PLAYERS.c.match_id == SEATS.c.match_id,
                MATCH_PLAYERS.c.seat == SEATS.c.seat,
            )
            await conn.execute(delete(SEATS).where(held.exists()))
            told = await challenges.withdrawn(self.db, conn, handle)
            await conn.execute(
                update(PLAYERS)
                .where(and_(PLAYERS.c.handle == handle, LIVE))
                .values(name=None, deleted_at=now)
            )
        return [(revoked_key(h), 1) for h in revoked] + told


async def _revoked(db: SqlDatabase, conn: AsyncConnection, which: Any) -> list[str]:
    """In the caller's transaction: the tokens ``which`` deleted, each revocation announced
    at commit so that what a token opened ends in every process; their hashes."""
    rows = await conn.execute(delete(TOKENS).where(which).returning(TOKENS.c.token_hash))
    hashes = [row.token_hash for row in rows]
    for hashed in hashes:
        await db.announce(conn, notice(revoked_key(hashed), 1, False))
    return hashes


def _token_row(token: PlayerToken, token_hash: str) -> dict[str, Any]:
    return {
        "id": token.id,
        "handle": token.handle,
        "token_hash": token_hash,
        "label": token.label,
        "created_at": token.created_at,
    }
