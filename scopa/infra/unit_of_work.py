"""The unit of work on SQL: what a use case registers (new matches, changes at a version,
the idempotent answer) is stored at ``commit``, all of it or none, with what comes with
each (its events, seat token hashes, AI-queue entry, deadline and NOTIFY).

A change is stored only if its match is still at the version expected (so of two racing
writers exactly one wins); a lost race is ``VersionConflict``, a key another request holds
``IdempotencyConflict``, and nothing is stored. On Postgres one change alone (a move, a
join) commits as one statement, so one round trip and no BEGIN or COMMIT: the move path's
floor. Anything else commits in one write transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Self

import asyncpg
from sqlalchemy import func, insert, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.domain.events import MatchFinished, StoredEvent
from scopa.domain.match import MatchState
from scopa.infra import ai_turns, challenges, standings
from scopa.infra.answers import keep_answer
from scopa.infra.codec import encode
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.match_reads import EVENTS, MATCHES, SEATS
from scopa.infra.notify import notice
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.service.limits import Quota, QuotaExceeded
from scopa.service.ports import (
    Answer,
    Change,
    IdempotencyConflict,
    MatchRecord,
    Settlement,
    VersionConflict,
)

# A change in one statement, so one transaction: the state at the expected version (on a
# race the row lock queues the writers and each re-reads the version, so only the first
# finds the one it expected), and only then the events, token hashes, idempotent answer
# and the match's pending AI turn (infra.ai_turns); NOTIFY, when asked for, goes out on
# commit. An empty array adds no rows, a NULL scope no answer. The answer fills the
# request's claim, else takes the key: held by another request, the insert fails on the
# key and the whole change with it.
_PG_CHANGE = """
WITH moved AS (
    UPDATE matches
    SET version = $3, status = $4, state = $5, updated_at = $6, has_open_seat = $7,
        due_at = $8
    WHERE id = $1 AND version = $2
    RETURNING id
), logged AS (
    INSERT INTO events (match_id, seq, payload)
    SELECT moved.id, e.seq, e.payload
    FROM moved, unnest($10::integer[], $11::bytea[]) AS e (seq, payload)
), seated AS (
    INSERT INTO seats (match_id, seat, token_hash)
    SELECT moved.id, t.seat, t.token_hash
    FROM moved, unnest($12::integer[], $13::varchar[]) AS t (seat, token_hash)
), filled AS (
    UPDATE idempotency
    SET fingerprint = $17, body = $18, created_at = $6
    FROM moved
    WHERE scope = $14::varchar AND key = $15 AND fingerprint = $16 AND body IS NULL
    RETURNING 1
), kept AS (
    INSERT INTO idempotency (scope, key, fingerprint, body, created_at)
    SELECT $14, $15, $17, $18, $6
    FROM moved
    WHERE $14 IS NOT NULL AND NOT EXISTS (SELECT FROM filled)
), queued AS (
    INSERT INTO ai_turns (match_id, human, ready_at)
    SELECT moved.id, $19, $20 FROM moved WHERE $9
    ON CONFLICT (match_id) DO UPDATE
    SET human = excluded.human, ready_at = excluded.ready_at, lease_until = NULL,
        leased_by = NULL
), dequeued AS (
    DELETE FROM ai_turns USING moved WHERE ai_turns.match_id = moved.id AND NOT $9
)
"""
# $3 to $8, in the order of the SET above; $9 says whether an AI is to play.
_STATE_COLUMNS = ("version", "status", "state", "updated_at", "has_open_seat", "due_at")
_PG_CHANGED = _PG_CHANGE + "SELECT 1 FROM moved"
_PG_CHANGED_NOTIFY = _PG_CHANGE + "SELECT pg_notify($21, $22) FROM moved"


def _state_columns(state: MatchState, now: float, due_at: float | None) -> dict[str, Any]:
    return {
        "version": state.version,
        "status": state.status,
        "state": encode(state),
        "updated_at": now,
        # A match that ended waiting keeps its open seats, but leaves the lobby.
        "has_open_seat": state.status == "waiting"
        and any(seat.kind == "open" for seat in state.seats),
        "due_at": due_at,
    }


class _New(NamedTuple):
    """A match to add, with what it is created with."""

    record: MatchRecord
    events: Sequence[StoredEvent]
    token_hashes: Mapping[int, str]
    quota: Quota | None


class SqlUnitOfWork(SqlStore):
    """One use case's writes; left without ``commit``, it stores nothing."""

    def __init__(self, db: SqlDatabase, ai_only_pace: float) -> None:
        super().__init__(db)
        self._ai_only_pace = ai_only_pace
        self._new: list[_New] = []
        self._changes: list[tuple[Change, Mapping[int, str]]] = []
        self._answer: Answer | None = None
        self._settlements: list[Settlement] = []

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._forget()

    def _forget(self) -> None:
        self._new, self._changes, self._answer, self._settlements = [], [], None, []

    def add(
        self,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        *,
        quota: Quota | None = None,
    ) -> None:
        self._new.append(_New(record, events, token_hashes, quota))

    def change(self, change: Change, token_hashes: Mapping[int, str] | None = None) -> None:
        self._changes.append((change, token_hashes or {}))

    def keep_answer(self, answer: Answer | None) -> None:
        self._answer = answer

    def settle(self, settlement: Settlement) -> None:
        self._settlements.append(settlement)

    @reaching_database
    async def commit(self) -> None:
        try:
            if (
                self.db.postgres
                and not self._new
                and not self._settlements
                and len(self._changes) == 1
                and not _touches_players(*self._changes[0])
            ):
                await self._pg_change(*self._changes[0], self._answer)
                return
            now = self.db.clock()
            async with write_transaction(self.db.engine) as conn:
                for new in self._new:
                    await self._insert(conn, new, now)
                for change, token_hashes in self._changes:
                    await self._update(conn, change, token_hashes, now)
                for settlement in self._settlements:
                    await challenges.settled(self.db, conn, settlement)
                if self._answer is not None:
                    await keep_answer(conn, *self._answer, now)
        finally:
            self._forget()

    async def _insert(self, conn: AsyncConnection, new: _New, now: float) -> None:
        """A new match with all that comes with it: counted toward its quota first
        (QuotaExceeded), its events, seats and, when an AI plays first, its queued turn."""
        record, quota = new.record, new.quota
        if quota is not None:
            await self._within(conn, quota)
        try:
            await conn.execute(
                insert(MATCHES).values(
                    id=record.id,
                    # As created: the log replays from here.
                    initial=encode(record.state),
                    created_at=record.created_at,
                    owner=quota and quota.owner,
                    quota=quota and quota.name,
                    **_state_columns(record.state, now, record.due_at),
                )
            )
        except IntegrityError as error:
            raise VersionConflict(f"match {record.id} already exists") from error
        await _append(conn, record.id, new.events)
        await _add_seats(conn, record.id, new.token_hashes)
        state = record.state
        await standings.seat_players(
            self.db, conn, record.id, record.created_at, state, range(state.players)
        )
        turn = ai_turns.pending_turn(record.state, now, self._ai_only_pace, created=True)
        if turn is not None:
            await ai_turns.requeue(conn, record.id, turn)
            # An AI that plays first: the processes that run AI hear of it on commit, not
            # at their next poll.
            await self.db.announce(conn, notice(record.id, record.state.seq, True))

    async def _update(
        self, conn: AsyncConnection, change: Change, token_hashes: Mapping[int, str], now: float
    ) -> None:
        match_id, expected = change.match_id, change.expected_version
        updated = await conn.execute(
            update(MATCHES)
            .where(MATCHES.c.id == match_id, MATCHES.c.version == expected)
            .values(**_state_columns(change.state, now, change.due_at))
        )
        if updated.rowcount != 1:
            raise VersionConflict(f"match {match_id} is no longer at {expected}")
        await _append(conn, match_id, change.events)
        await _add_seats(conn, match_id, token_hashes)
        if _players_seated(change.state, token_hashes):
            created = await conn.execute(
                select(MATCHES.c.created_at).where(MATCHES.c.id == match_id)
            )
            await standings.seat_players(
                self.db, conn, match_id, created.scalar_one(), change.state, token_hashes
            )
        if _finishes(change):
            await standings.finished(self.db, conn, match_id, change.state)
        turn = ai_turns.pending_turn(change.state, now, self._ai_only_pace)
        await ai_turns.requeue(conn, match_id, turn)
        await self.db.announce(conn, notice(match_id, change.state.seq, turn is not None))

    async def _within(self, conn: AsyncConnection, quota: Quota) -> None:
        """QuotaExceeded unless the owner holds fewer than ``quota.cap`` matches of it.
        Creations of one owner queue on a lock until the transaction ends, so racing
        ones cannot both take the last slot (SQLite has one writer anyway)."""
        if self.db.postgres:
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:owner))"),
                {"owner": f"quota:{quota.owner}"},
            )
        counted = await conn.execute(
            select(func.count()).where(
                MATCHES.c.owner == quota.owner,
                MATCHES.c.quota == quota.name,
                MATCHES.c.status == quota.status,
            )
        )
        if counted.scalar_one() >= quota.cap:
            raise QuotaExceeded(quota.name, quota.cap)

    async def _pg_change(
        self, change: Change, token_hashes: Mapping[int, str], answer: Answer | None
    ) -> None:
        now = self.db.clock()
        match_id, state, events = change.match_id, change.state, change.events
        columns = _state_columns(state, now, change.due_at)
        turn = ai_turns.pending_turn(state, now, self._ai_only_pace)
        request, kept = answer if answer is not None else (None, None)
        args: list[object] = [
            match_id,
            change.expected_version,
            *(columns[name] for name in _STATE_COLUMNS),
            turn is not None,
            [e.seq for e in events],
            [encode(e) for e in events],
            list(token_hashes),
            list(token_hashes.values()),
            request and request.scope,
            request and request.key,
            request and request.fingerprint,
            kept and kept.fingerprint,
            kept and kept.body,
            # Unused without a turn ($9 false), but typed all the same.
            turn is not None and turn["human"],
            turn["ready_at"] if turn is not None else 0.0,
        ]
        query = _PG_CHANGED
        if self.db.notify is not None:
            query = _PG_CHANGED_NOTIFY
            args += [self.db.notify, notice(match_id, state.seq, turn is not None)]
        try:
            stored = await self.db.pg("fetch", query, *args, read=False)
        except asyncpg.UniqueViolationError as error:
            if error.constraint_name == "pk_events":
                conflict = f"match {match_id} already has one of these events"
                raise VersionConflict(conflict) from error
            if error.constraint_name == "pk_idempotency" and request is not None:
                held = f"key {request.key!r} is held by another request"
                raise IdempotencyConflict(held) from error
            raise
        if not stored:
            raise VersionConflict(f"match {match_id} is no longer at {change.expected_version}")


def _players_seated(state: MatchState, token_hashes: Mapping[int, str]) -> bool:
    return any(state.seats[seat].player is not None for seat in token_hashes)


def _finishes(change: Change) -> bool:
    return any(isinstance(e, MatchFinished) for e in change.events)


def _touches_players(change: Change, token_hashes: Mapping[int, str]) -> bool:
    """A change that seats a player, or finishes a match players hold seats in: the
    players' rows change with it (``infra.standings``), so it is more than one statement."""
    if _players_seated(change.state, token_hashes):
        return True
    return _finishes(change) and any(s.player is not None for s in change.state.seats)


async def _append(conn: AsyncConnection, match_id: str, events: Sequence[StoredEvent]) -> None:
    if not events:
        return
    rows = [{"match_id": match_id, "seq": e.seq, "payload": encode(e)} for e in events]
    try:
        await conn.execute(insert(EVENTS), rows)
    except IntegrityError as error:
        raise VersionConflict(f"match {match_id} already has one of these events") from error


async def _add_seats(conn: AsyncConnection, match_id: str, hashes: Mapping[int, str]) -> None:
    if hashes:
        rows = [{"match_id": match_id, "seat": s, "token_hash": h} for s, h in hashes.items()]
        await conn.execute(insert(SEATS), rows)
