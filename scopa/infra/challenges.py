"""Challenges (``challenges``) and each player's stream of news of them (``inbox``).

A player's news is numbered from 1, each number taken in the transaction that writes it
(on Postgres under a lock per player, so two writers cannot take one number), and
announced on commit (``@<handle>`` on the NOTIFY channel) to the processes following it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, and_, case, func, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.infra.answers import keep_answer
from scopa.infra.codec import decode_rules, encode
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.live_players import hold_live
from scopa.infra.notify import notice
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.infra.tables import ChallengeRow, InboxRow
from scopa.service.challenges import inbox_key, news_of
from scopa.service.limits import (
    CHALLENGES_MADE,
    CHALLENGES_PENDING,
    QuotaExceeded,
    minute_after,
)
from scopa.service.ports import Answer, Challenge, ChallengeGone, Settlement

CHALLENGES: Table = ChallengeRow.__table__  # type: ignore[assignment]
INBOX: Table = InboxRow.__table__  # type: ignore[assignment]


def _challenge_of(row: Any, now: float) -> Challenge:
    status = "expired" if row.status == "pending" and row.expires_at <= now else row.status
    return Challenge(
        id=row.id,
        challenger=row.challenger,
        opponent=row.opponent,
        level=row.level,
        rules=decode_rules(row.rules),
        rated=row.rated,
        status=status,
        created_at=row.created_at,
        expires_at=row.expires_at,
        match_id=row.match_id,
    )


def _pending(now: float) -> Any:
    return and_(CHALLENGES.c.status == "pending", CHALLENGES.c.expires_at > now)


async def _lock(db: SqlDatabase, conn: AsyncConnection, key: str) -> None:
    if db.postgres:
        await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})


async def tell(
    db: SqlDatabase, conn: AsyncConnection, notices: Sequence[tuple[str, bytes]]
) -> list[tuple[str, int]]:
    """In the caller's transaction: each player's next news, announced at commit; the
    announcements, as (key, seq)."""
    told = []
    for handle, body in sorted(notices, key=lambda n: n[0]):
        await _lock(db, conn, f"inbox:{handle}")
        latest = await conn.execute(
            select(func.coalesce(func.max(INBOX.c.seq), 0)).where(INBOX.c.handle == handle)
        )
        seq = int(latest.scalar_one()) + 1
        await conn.execute(INBOX.insert().values(handle=handle, seq=seq, body=body))
        await db.announce(conn, notice(inbox_key(handle), seq, False))
        told.append((inbox_key(handle), seq))
    return told


async def settled(db: SqlDatabase, conn: AsyncConnection, settlement: Settlement) -> None:
    """In the caller's transaction: the pending challenge ended as ``settlement`` says;
    ChallengeGone when it is not pending any more."""
    ended = await conn.execute(
        update(CHALLENGES)
        .where(CHALLENGES.c.id == settlement.challenge_id, _pending(db.clock()))
        .values(status=settlement.status, match_id=settlement.match_id)
    )
    if ended.rowcount != 1:
        raise ChallengeGone(f"challenge {settlement.challenge_id} is not pending")
    await tell(db, conn, settlement.notices)


async def withdrawn(db: SqlDatabase, conn: AsyncConnection, handle: str) -> list[tuple[str, int]]:
    """In the deletion's transaction: every pending challenge of ``handle`` ended,
    cancelled if it made it and declined if it received it, each with news to the other
    player; the announcements, as (key, seq)."""
    mine = or_(CHALLENGES.c.challenger == handle, CHALLENGES.c.opponent == handle)
    ended = await conn.execute(
        update(CHALLENGES)
        .where(_pending(db.clock()), mine)
        .values(status=case((CHALLENGES.c.challenger == handle, "cancelled"), else_="declined"))
        .returning(*CHALLENGES.c)
    )
    notices = [
        told
        for row in ended
        for told in news_of(_challenge_of(row, db.clock()), row.challenger, row.opponent)
        if told[0] != handle
    ]
    return await tell(db, conn, notices)


class SqlChallenges(SqlStore):
    @reaching_database
    async def add(
        self,
        challenge: Challenge,
        notices: Sequence[tuple[str, bytes]],
        *,
        per_minute: int,
        pending: int,
        answer: Answer | None = None,
    ) -> None:
        now = self.db.clock()
        mine = CHALLENGES.c.challenger == challenge.challenger
        async with write_transaction(self.db.engine) as conn:
            # A player's challenges made at once take turns, so none slips past a cap.
            await _lock(self.db, conn, f"challenges:{challenge.challenger}")
            await hold_live(self.db, conn, filter(None, (challenge.challenger, challenge.opponent)))
            if per_minute:
                recent = await conn.execute(
                    select(func.count(), func.min(CHALLENGES.c.created_at)).where(
                        mine, CHALLENGES.c.created_at > now - 60.0
                    )
                )
                made, oldest = recent.one()
                if made >= per_minute:
                    raise QuotaExceeded(CHALLENGES_MADE, per_minute, minute_after(oldest, now))
            if pending:
                held = await conn.execute(select(func.count()).where(mine, _pending(now)))
                if held.scalar_one() >= pending:
                    raise QuotaExceeded(CHALLENGES_PENDING, pending)
            await conn.execute(
                CHALLENGES.insert().values(
                    id=challenge.id,
                    challenger=challenge.challenger,
                    opponent=challenge.opponent,
                    level=challenge.level,
                    rules=encode(challenge.rules),
                    rated=challenge.rated,
                    status=challenge.status,
                    created_at=challenge.created_at,
                    expires_at=challenge.expires_at,
                )
            )
            if answer is not None:
                await keep_answer(conn, *answer, now)
            await tell(self.db, conn, notices)

    @reaching_database
    async def challenge(self, challenge_id: str) -> Challenge | None:
        row = await self.db.read_one(select(CHALLENGES).where(CHALLENGES.c.id == challenge_id))
        return None if row is None else _challenge_of(row, self.db.clock())

    @reaching_database
    async def open(self, limit: int) -> list[Challenge]:
        now = self.db.clock()
        query = (
            select(CHALLENGES)
            .where(_pending(now), CHALLENGES.c.opponent.is_(None), CHALLENGES.c.level.is_(None))
            .order_by(CHALLENGES.c.created_at.desc(), CHALLENGES.c.id.desc())
            .limit(limit)
        )
        return [_challenge_of(row, now) for row in await self.db.read(query)]

    @reaching_database
    async def of(self, handle: str, limit: int, after: tuple[float, str] | None) -> list[Challenge]:
        now = self.db.clock()
        query = (
            select(CHALLENGES)
            .where(
                _pending(now),
                or_(CHALLENGES.c.opponent == handle, CHALLENGES.c.challenger == handle),
            )
            .order_by(CHALLENGES.c.created_at.desc(), CHALLENGES.c.id.desc())
            .limit(limit)
        )
        if after is not None:
            created, challenge_id = after
            query = query.where(
                or_(
                    CHALLENGES.c.created_at < created,
                    and_(CHALLENGES.c.created_at == created, CHALLENGES.c.id < challenge_id),
                )
            )
        return [_challenge_of(row, now) for row in await self.db.read(query)]

    @reaching_database
    async def settle(self, settlement: Settlement) -> None:
        async with write_transaction(self.db.engine) as conn:
            await settled(self.db, conn, settlement)

    @reaching_database
    async def inbox(self, handle: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        query = (
            select(INBOX.c.seq, INBOX.c.body)
            .where(INBOX.c.handle == handle, INBOX.c.seq > after)
            .order_by(INBOX.c.seq)
            .limit(limit)
        )
        return [(row.seq, row.body) for row in await self.db.read(query)]

    @reaching_database
    async def latest(self, handle: str) -> int:
        query = select(func.coalesce(func.max(INBOX.c.seq), 0)).where(INBOX.c.handle == handle)
        return int((await self.db.read(query))[0][0])
