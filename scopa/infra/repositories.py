"""``MatchStore`` on SQLAlchemy Core, for Postgres and SQLite alike.

Every change is one transaction: a save updates the match row only if it still has the
expected version (so of two racing writers exactly one wins) and appends the events,
token hashes and idempotent answer with it. Driver failures surface as
``DatabaseUnavailable``.

On Postgres the move path (``get``, ``get_for_token``, ``save``) and the AI runner's
``claim_ai_turn`` go to asyncpg itself, one statement and one round trip each, outside
any explicit transaction: a single statement is atomic on its own, and each BEGIN or
COMMIT would cost a round trip, which is most of a request's CPU (every answer from the
server resumes the whole coroutine stack). asyncpg prepares each statement once per
connection; SQLAlchemy would compile and cache-key it on every call.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import asyncpg
from sqlalchemy import Table, and_, delete, func, insert, or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import Executable

from scopa.domain.ai.review import Review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.infra import ai_queue, hint_queue, review_queue
from scopa.infra.codec import decode_event as _decode_event
from scopa.infra.codec import decode_hint as _decode_hint
from scopa.infra.codec import decode_review as _decode_review
from scopa.infra.codec import decode_state as _decode_state
from scopa.infra.codec import encode as _encode
from scopa.infra.db import write_transaction
from scopa.infra.guard import Abandoning, reaching_database
from scopa.infra.notify import answer_notice, hint_notice, notice
from scopa.infra.statements import pg_statement
from scopa.infra.tables import EventRow, IdempotencyRow, MatchRow, ReviewRow, SeatRow
from scopa.service.limits import Quota, QuotaExceeded
from scopa.service.ports import (
    AiBacklog,
    Change,
    Idempotency,
    IdempotencyConflict,
    MatchRecord,
    StoredAnswer,
    VersionConflict,
)

MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
IDEMPOTENCY: Table = IdempotencyRow.__table__  # type: ignore[assignment]
REVIEWS: Table = ReviewRow.__table__  # type: ignore[assignment]

# A claim this old belongs to a request that crashed: its key may be claimed again.
CLAIM_TTL = 60.0


_PG_GET = "SELECT state, created_at, due_at FROM matches WHERE id = $1"
_PG_GET_FOR_TOKEN = """
SELECT m.state, m.created_at, m.due_at, s.seat
FROM matches AS m LEFT JOIN seats AS s ON s.match_id = m.id AND s.token_hash = $2
WHERE m.id = $1"""
# A save in one statement, so one transaction: the state at the expected version (on a
# race the row lock queues the writers and each re-reads the version, so only the first
# finds the one it expected), and only then the events, token hashes, idempotent answer
# and the match's pending AI turn (infra.ai_queue); NOTIFY, when asked for, goes out on
# commit. An empty array adds no rows, a NULL scope no answer. The answer fills the
# request's claim, else takes the key: held by another request, the insert fails on the
# key and the whole save with it.
_PG_SAVE = """
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
_SAVED_COLUMNS = (
    "version",
    "status",
    "state",
    "updated_at",
    "has_open_seat",
    "due_at",
)
_PG_SAVED = _PG_SAVE + "SELECT 1 FROM moved"
_PG_SAVED_NOTIFY = _PG_SAVE + "SELECT pg_notify($21, $22) FROM moved"

# A runner claims four times a second and after every change it hears of, any process's:
# built once, and on Postgres compiled once and sent as one statement (atomic on its own,
# so without BEGIN and COMMIT) like the move path's. Each was some 3 ms of CPU through
# SQLAlchemy and a transaction, more than a whole move costs.
_CLAIMS = {
    human_only: ai_queue.claim_statement(human_only=human_only) for human_only in (False, True)
}


def _pg_compiled(statement: Any) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """The statement's asyncpg text, its parameters' names in ``$n`` order, and the values
    it binds itself (a LIMIT's)."""
    compiled = statement.compile(dialect=postgresql.asyncpg.dialect())  # type: ignore[no-untyped-call]
    return str(compiled), tuple(compiled.positiontup or ()), dict(compiled.params)


_PG_CLAIMS = {human_only: _pg_compiled(claim) for human_only, claim in _CLAIMS.items()}
_CLAIM_REVIEW = review_queue.claim_statement()
_CLAIM_HINT = hint_queue.claim_statement()
HINTS = hint_queue.HINTS
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def _state_columns(state: MatchState, now: float, due_at: float | None) -> dict[str, Any]:
    return {
        "version": state.version,
        "status": state.status,
        "state": _encode(state),
        "updated_at": now,
        # A match that ended waiting keeps its open seats, but leaves the lobby.
        "has_open_seat": state.status == "waiting"
        and any(seat.kind == "open" for seat in state.seats),
        "due_at": due_at,
    }


class SqlMatchStore(Abandoning):
    """The match store; ``clock`` (unix seconds) is injectable for the claim timeout.

    ``notify`` (Postgres only) names a channel: each save sends its ``notice`` on it,
    delivered when the save commits, for ``PostgresEventBus`` listeners.
    ``ai_only_pace``: seconds between the moves of a match of AI seats only
    (``infra.ai_queue``).
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        notify: str | None = None,
        claim_ttl: float = CLAIM_TTL,
        clock: Callable[[], float] = time.time,
        ai_only_pace: float = 0.0,
    ) -> None:
        super().__init__()
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        if notify is not None and not self._postgres:
            raise ValueError("NOTIFY needs Postgres")
        self._notify = notify
        self._claim_ttl = claim_ttl
        self._clock = clock
        self._ai_only_pace = ai_only_pace

    @reaching_database
    async def create(
        self,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        answer: tuple[Idempotency, StoredAnswer] | None = None,
        *,
        quota: Quota | None = None,
    ) -> None:
        async with write_transaction(self._engine) as conn:
            await self._insert(conn, record, events, token_hashes, answer, self._clock(), quota)

    @reaching_database
    async def create_rematch(
        self,
        offer: Change,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        answer: tuple[Idempotency, StoredAnswer] | None = None,
        *,
        quota: Quota | None = None,
    ) -> None:
        now = self._clock()
        async with write_transaction(self._engine) as conn:
            await self._insert(conn, record, events, token_hashes, answer, now, quota)
            updated = await conn.execute(
                update(MATCHES)
                .where(MATCHES.c.id == offer.match_id, MATCHES.c.version == offer.expected_version)
                .values(**_state_columns(offer.state, now, offer.due_at))
            )
            if updated.rowcount != 1:
                raise VersionConflict(
                    f"match {offer.match_id} is no longer at {offer.expected_version}"
                )
            await _append(conn, offer.match_id, offer.events)
            if self._notify is not None:
                # As a save does: delivered on commit, to the finished match's long polls.
                await conn.execute(
                    select(
                        func.pg_notify(self._notify, notice(offer.match_id, offer.state.seq, False))
                    )
                )

    async def _write(self, statement: Executable) -> CursorResult[Any]:
        """One statement in a write transaction of its own."""
        async with write_transaction(self._engine) as conn:
            return await conn.execute(statement)

    async def _insert(
        self,
        conn: AsyncConnection,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        answer: tuple[Idempotency, StoredAnswer] | None,
        now: float,
        quota: Quota | None,
    ) -> None:
        """A new match with all that comes with it, in the caller's transaction: counted
        toward ``quota`` first (QuotaExceeded), its events, seats, idempotent answer and,
        when an AI plays first, its queued turn."""
        if quota is not None:
            await self._within(conn, quota)
        try:
            await conn.execute(
                insert(MATCHES).values(
                    id=record.id,
                    # As created: the log replays from here.
                    initial=_encode(record.state),
                    created_at=record.created_at,
                    owner=quota and quota.owner,
                    quota=quota and quota.name,
                    **_state_columns(record.state, now, record.due_at),
                )
            )
        except IntegrityError as error:
            raise VersionConflict(f"match {record.id} already exists") from error
        await _append(conn, record.id, events)
        await _add_seats(conn, record.id, token_hashes)
        if answer is not None:
            await _keep_answer(conn, *answer, now)
        turn = ai_queue.pending_turn(record.state, now, self._ai_only_pace, created=True)
        if turn is not None:
            await ai_queue.requeue(conn, record.id, turn)
            if self._notify is not None:
                # An AI that plays first: the processes that run AI hear of it on commit,
                # not at their next poll.
                payload = notice(record.id, record.state.seq, True)
                await conn.execute(select(func.pg_notify(self._notify, payload)))

    async def _within(self, conn: AsyncConnection, quota: Quota) -> None:
        """QuotaExceeded unless the owner holds fewer than ``quota.cap`` matches of it.
        Creations of one owner queue on a lock until the transaction ends, so racing
        ones cannot both take the last slot (SQLite has one writer anyway)."""
        if self._postgres:
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
        held = counted.scalar_one()
        if held >= quota.cap:
            raise QuotaExceeded(quota.name, quota.cap)

    @reaching_database
    async def get(self, match_id: str) -> MatchRecord | None:
        if self._postgres:
            row = await self._pg("fetchrow", _PG_GET, match_id, read=True)
        else:
            query = select(MATCHES.c.state, MATCHES.c.created_at, MATCHES.c.due_at).where(
                MATCHES.c.id == match_id
            )
            async with self._engine.connect() as conn:
                row = (await conn.execute(query)).one_or_none()
        return None if row is None else _record(match_id, row)

    @reaching_database
    async def get_for_token(
        self, match_id: str, token_hash: str
    ) -> tuple[MatchRecord, int | None] | None:
        if self._postgres:
            row = await self._pg("fetchrow", _PG_GET_FOR_TOKEN, match_id, token_hash, read=True)
        else:
            query = (
                select(MATCHES.c.state, MATCHES.c.created_at, MATCHES.c.due_at, SEATS.c.seat)
                .select_from(MATCHES)
                .outerjoin(
                    SEATS, and_(SEATS.c.match_id == MATCHES.c.id, SEATS.c.token_hash == token_hash)
                )
                .where(MATCHES.c.id == match_id)
            )
            async with self._engine.connect() as conn:
                row = (await conn.execute(query)).one_or_none()
        return None if row is None else (_record(match_id, row), row[3])

    async def _pg(self, fetch: str, query: str, *args: object, read: bool) -> Any:
        return await pg_statement(self._engine, fetch, query, *args, read=read)

    @reaching_database
    async def save(
        self,
        match_id: str,
        expected_version: int,
        state: MatchState,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str] | None = None,
        answer: tuple[Idempotency, StoredAnswer] | None = None,
        *,
        due_at: float | None = None,
    ) -> None:
        now = self._clock()
        columns = _state_columns(state, now, due_at)
        turn = ai_queue.pending_turn(state, now, self._ai_only_pace)
        if self._postgres:
            await self._pg_save(
                match_id, expected_version, state.seq, columns, events, token_hashes, answer, turn
            )
            return
        async with write_transaction(self._engine) as conn:
            updated = await conn.execute(
                update(MATCHES)
                .where(MATCHES.c.id == match_id, MATCHES.c.version == expected_version)
                .values(**columns)
            )
            if updated.rowcount != 1:
                raise VersionConflict(f"match {match_id} is no longer at {expected_version}")
            await _append(conn, match_id, events)
            if token_hashes:
                await _add_seats(conn, match_id, token_hashes)
            if answer is not None:
                await _keep_answer(conn, *answer, now)
            await ai_queue.requeue(conn, match_id, turn)

    async def _pg_save(
        self,
        match_id: str,
        expected_version: int,
        seq: int,
        columns: dict[str, Any],
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str] | None,
        answer: tuple[Idempotency, StoredAnswer] | None,
        turn: dict[str, Any] | None,
    ) -> None:
        hashes = token_hashes or {}
        request, kept = answer if answer is not None else (None, None)
        args: list[object] = [
            match_id,
            expected_version,
            *(columns[name] for name in _SAVED_COLUMNS),
            turn is not None,
            [e.seq for e in events],
            [_encode(e) for e in events],
            list(hashes),
            list(hashes.values()),
            request and request.scope,
            request and request.key,
            request and request.fingerprint,
            kept and kept.fingerprint,
            kept and kept.body,
            # Unused without a turn ($9 false), but typed all the same.
            turn is not None and turn["human"],
            turn["ready_at"] if turn is not None else 0.0,
        ]
        query = _PG_SAVED
        if self._notify is not None:
            query = _PG_SAVED_NOTIFY
            args += [self._notify, notice(match_id, seq, turn is not None)]
        try:
            saved = await self._pg("fetch", query, *args, read=False)
        except asyncpg.UniqueViolationError as error:
            if error.constraint_name == "pk_events":
                conflict = f"match {match_id} already has one of these events"
                raise VersionConflict(conflict) from error
            if error.constraint_name == "pk_idempotency" and request is not None:
                held = f"key {request.key!r} is held by another request"
                raise IdempotencyConflict(held) from error
            raise
        if not saved:
            raise VersionConflict(f"match {match_id} is no longer at {expected_version}")

    @reaching_database
    async def token_known(self, token_hash: str) -> bool:
        query = select(SEATS.c.seat).where(SEATS.c.token_hash == token_hash).limit(1)
        async with self._engine.connect() as conn:
            return (await conn.execute(query)).first() is not None

    @reaching_database
    async def active_count(self) -> int:
        # No index on status: a scan of the matches' rows, once a scrape (seconds apart).
        query = select(func.count()).select_from(MATCHES).where(MATCHES.c.status == "active")
        async with self._engine.connect() as conn:
            return int((await conn.execute(query)).scalar_one())

    @reaching_database
    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        query = (
            select(EVENTS.c.payload)
            .where(EVENTS.c.match_id == match_id, EVENTS.c.seq > after)
            .order_by(EVENTS.c.seq)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            payloads = (await conn.execute(query)).scalars().all()
        return [_decode_event(payload) for payload in payloads]

    @reaching_database
    async def initial(self, match_id: str) -> MatchState | None:
        query = select(MATCHES.c.initial).where(MATCHES.c.id == match_id)
        async with self._engine.connect() as conn:
            found = (await conn.execute(query)).scalar_one_or_none()
        return None if found is None else _decode_state(found)

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
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [_record(row.id, row[1:]) for row in rows]

    @reaching_database
    async def keep_review(self, match_id: str, review: Review) -> None:
        dialect = postgresql if self._postgres else sqlite
        row = {
            "match_id": match_id,
            "seat": review.seat,
            "body": _encode(review),
            "created_at": self._clock(),
        }
        async with write_transaction(self._engine) as conn:
            await conn.execute(dialect.insert(REVIEWS).values(**row).on_conflict_do_nothing())
            await review_queue.done(conn, (match_id, review.seat))

    @reaching_database
    async def ask_review(self, match_id: str, seat: int) -> None:
        async with write_transaction(self._engine) as conn:
            await review_queue.ask(conn, (match_id, seat), self._clock())

    @reaching_database
    async def review_held(self, match_id: str, seat: int) -> bool:
        held = review_queue.held_statement((match_id, seat), self._clock())
        async with self._engine.connect() as conn:
            return bool((await conn.execute(held)).scalar_one())

    @reaching_database
    async def claim_review(
        self, lease_seconds: float, by: str = "", full: bool = False
    ) -> tuple[str, int] | None:
        """The oldest review asked for that nobody holds, leased to ``by`` for
        ``lease_seconds``; None when there is none, or when the claimer is ``full``: a
        review never comes before other AI work (``infra.review_queue``)."""
        if full:
            return None
        now = self._clock()
        values = {"now": now, "until": now + lease_seconds, "by": by}
        async with write_transaction(self._engine) as conn:
            row = (await conn.execute(_CLAIM_REVIEW, values)).one_or_none()
        return None if row is None else (row.match_id, row.seat)

    @reaching_database
    async def ask_hint(self, match_id: str, state: MatchState, seat: int, level: str) -> str:
        job = secrets.token_urlsafe(12)
        row = {
            "id": job,
            "match_id": match_id,
            "state": _encode(state),
            "seat": seat,
            "level": level,
            "asked_at": self._clock(),
        }
        async with write_transaction(self._engine) as conn:
            await conn.execute(insert(HINTS).values(**row))
            if self._notify is not None:
                payload = hint_notice(match_id, state.seq)
                await conn.execute(_NOTIFY, {"channel": self._notify, "payload": payload})
        return job

    @reaching_database
    async def hint_answer(self, job: str) -> tuple[Move, str] | None:
        query = select(HINTS.c.answer).where(HINTS.c.id == job)
        async with self._engine.connect() as conn:
            answer = (await conn.execute(query)).scalar_one_or_none()
        return None if answer is None else _decode_hint(answer)

    @reaching_database
    async def hint_held(self, job: str) -> bool:
        async with self._engine.connect() as conn:
            held = await conn.execute(hint_queue.held_statement(job, self._clock()))
            return bool(held.scalar_one())

    @reaching_database
    async def drop_hint(self, job: str) -> None:
        await self._write(hint_queue.drop_statement(job))

    @reaching_database
    async def hint_job(self, job: str) -> tuple[MatchState, int, str] | None:
        query = select(HINTS.c.state, HINTS.c.seat, HINTS.c.level).where(HINTS.c.id == job)
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).one_or_none()
        return None if row is None else (_decode_state(row.state), row.seat, row.level)

    @reaching_database
    async def answer_hint(self, job: str, move: Move, reason: str) -> None:
        answer = update(HINTS).where(HINTS.c.id == job).values(answer=_encode((move, reason)))
        async with write_transaction(self._engine) as conn:
            await conn.execute(answer)
            if self._notify is not None:
                payload = answer_notice(job)
                await conn.execute(_NOTIFY, {"channel": self._notify, "payload": payload})

    @reaching_database
    async def claim_hint(
        self, lease_seconds: float, by: str = "", full: bool = False
    ) -> str | None:
        """The oldest hint asked for that nobody holds, leased to ``by`` for
        ``lease_seconds``; None when there is none or the claimer is ``full``
        (``infra.hint_queue``)."""
        if full:
            return None
        now = self._clock()
        values = {
            "now": now,
            "until": now + lease_seconds,
            "by": by,
            "since": now - hint_queue.HINT_TTL_SECONDS,
        }
        async with write_transaction(self._engine) as conn:
            return (await conn.execute(_CLAIM_HINT, values)).scalar_one_or_none()

    @reaching_database
    async def renew_hint(self, job: str, lease_seconds: float, by: str) -> None:
        renew = hint_queue.renew_statement(job, self._clock(), lease_seconds, by)
        await self._write(renew)

    @reaching_database
    async def purge_hints(self) -> int:
        """Delete the hints whose askers are gone (``hint_queue.HINT_TTL_SECONDS``)."""
        purge = hint_queue.purge_statement(self._clock() - hint_queue.HINT_TTL_SECONDS)
        return (await self._write(purge)).rowcount

    @reaching_database
    async def renew_review(self, job: tuple[str, int], lease_seconds: float, by: str) -> None:
        renew = review_queue.renew_statement(job, self._clock(), lease_seconds, by)
        await self._write(renew)

    @reaching_database
    async def review(self, match_id: str, seat: int) -> Review | None:
        query = select(REVIEWS.c.body).where(REVIEWS.c.match_id == match_id, REVIEWS.c.seat == seat)
        async with self._engine.connect() as conn:
            body = (await conn.execute(query)).scalar_one_or_none()
        return None if body is None else _decode_review(body)

    @reaching_database
    async def seat_tokens(self, match_id: str) -> dict[int, str]:
        query = select(SEATS.c.seat, SEATS.c.token_hash).where(SEATS.c.match_id == match_id)
        async with self._engine.connect() as conn:
            return {row.seat: row.token_hash for row in await conn.execute(query)}

    @reaching_database
    async def claim_ai_turn(
        self, lease_seconds: float, by: str = "", human_only: bool = False
    ) -> str | None:
        """The match of the most urgent AI turn (of a match with a human seat only:
        ``human_only``), leased to ``by`` for ``lease_seconds``; None when no turn is
        ready (``infra.ai_queue``)."""
        now = self._clock()
        values = {"now": now, "until": now + lease_seconds, "by": by}
        if self._postgres:
            query, names, defaults = _PG_CLAIMS[human_only]
            params = {**defaults, **values}
            claimed: str | None = await self._pg(
                "fetchval", query, *(params[n] for n in names), read=False
            )
            return claimed
        async with write_transaction(self._engine) as conn:
            claim = _CLAIMS[human_only]
            return (await conn.execute(claim, values)).scalar_one_or_none()

    @reaching_database
    async def renew_ai_turn(self, match_id: str, lease_seconds: float, by: str) -> None:
        renew = ai_queue.renew_statement(match_id, self._clock(), lease_seconds, by)
        await self._write(renew)

    @reaching_database
    async def ai_backlog(self) -> AiBacklog:
        async with self._engine.connect() as conn:
            ready, oldest = (await conn.execute(ai_queue.backlog_statement(self._clock()))).one()
        return AiBacklog(int(ready), oldest)

    @reaching_database
    async def beat(self, worker: str, capacity: int) -> None:
        async with write_transaction(self._engine) as conn:
            await ai_queue.beat(conn, worker, capacity, self._clock())

    @reaching_database
    async def leave(self, worker: str) -> None:
        async with write_transaction(self._engine) as conn:
            await ai_queue.leave(conn, worker)

    @reaching_database
    async def ai_capacity(self) -> int:
        async with self._engine.connect() as conn:
            found = await conn.execute(ai_queue.capacity_statement(self._clock()))
            return int(found.scalar_one())

    @reaching_database
    async def due(self, now: float, limit: int) -> list[str]:
        query = (
            select(MATCHES.c.id)
            .where(MATCHES.c.due_at <= now)
            .order_by(MATCHES.c.due_at)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return list((await conn.execute(query)).scalars().all())

    @reaching_database
    async def begin_idempotent(self, request: Idempotency) -> StoredAnswer | None:
        now = self._clock()
        key = (IDEMPOTENCY.c.scope == request.scope, IDEMPOTENCY.c.key == request.key)
        async with write_transaction(self._engine) as conn:
            claim = _insert_if_absent(conn).values(
                scope=request.scope,
                key=request.key,
                fingerprint=request.fingerprint,
                created_at=now,
            )
            if (await conn.execute(claim)).rowcount == 1:
                return None
            held = (await conn.execute(select(IDEMPOTENCY).where(*key))).one_or_none()
            if held is None:
                raise IdempotencyConflict(f"key {request.key!r} was just released")
            if held.body is not None:
                return StoredAnswer(fingerprint=held.fingerprint, body=held.body)
            if now - held.created_at < self._claim_ttl:
                raise IdempotencyConflict(f"key {request.key!r} is in use")
            # Matching on the old claim's time lets only one of several retries take it.
            retaken = await conn.execute(
                update(IDEMPOTENCY)
                .where(
                    *key,
                    IDEMPOTENCY.c.body.is_(None),
                    IDEMPOTENCY.c.created_at == held.created_at,
                )
                .values(fingerprint=request.fingerprint, created_at=now)
            )
            if retaken.rowcount != 1:
                raise IdempotencyConflict(f"key {request.key!r} is in use")
            return None

    @reaching_database
    async def release_idempotent(self, request: Idempotency) -> None:
        async with write_transaction(self._engine) as conn:
            await conn.execute(
                delete(IDEMPOTENCY).where(
                    IDEMPOTENCY.c.scope == request.scope,
                    IDEMPOTENCY.c.key == request.key,
                    IDEMPOTENCY.c.fingerprint == request.fingerprint,
                    IDEMPOTENCY.c.body.is_(None),
                )
            )

    @reaching_database
    async def purge_idempotency(self, older_than: float) -> int:
        """Forget keys claimed or answered before ``older_than`` (unix seconds); keep at
        least 24 hours' worth. Returns how many were dropped."""
        async with write_transaction(self._engine) as conn:
            purged = await conn.execute(
                delete(IDEMPOTENCY).where(IDEMPOTENCY.c.created_at < older_than)
            )
        return purged.rowcount

    @reaching_database
    async def ping(self) -> None:
        async with self._engine.connect() as conn:
            await conn.execute(text("SELECT 1"))


def _record(match_id: str, row: Any) -> MatchRecord:
    """From (state, created_at, due_at, ...): an asyncpg record or a SQLAlchemy row."""
    return MatchRecord(id=match_id, state=_decode_state(row[0]), created_at=row[1], due_at=row[2])


async def _append(conn: AsyncConnection, match_id: str, events: Sequence[StoredEvent]) -> None:
    if not events:
        return
    rows = [{"match_id": match_id, "seq": e.seq, "payload": _encode(e)} for e in events]
    try:
        await conn.execute(insert(EVENTS), rows)
    except IntegrityError as error:
        raise VersionConflict(f"match {match_id} already has one of these events") from error


async def _add_seats(conn: AsyncConnection, match_id: str, hashes: Mapping[int, str]) -> None:
    if hashes:
        rows = [{"match_id": match_id, "seat": s, "token_hash": h} for s, h in hashes.items()]
        await conn.execute(insert(SEATS), rows)


async def _keep_answer(
    conn: AsyncConnection, request: Idempotency, answer: StoredAnswer, now: float
) -> None:
    """Fill in the request's claim; the 24 hours of keeping run from now."""
    columns = {
        "fingerprint": answer.fingerprint,
        "body": answer.body,
        "created_at": now,
    }
    filled = await conn.execute(
        update(IDEMPOTENCY)
        .where(
            IDEMPOTENCY.c.scope == request.scope,
            IDEMPOTENCY.c.key == request.key,
            IDEMPOTENCY.c.fingerprint == request.fingerprint,
            IDEMPOTENCY.c.body.is_(None),
        )
        .values(**columns)
    )
    if filled.rowcount == 1:
        return
    # No claim of ours (released, purged or never taken): keep the answer unless another
    # request holds the key, in which case this whole change must not happen.
    try:
        await conn.execute(
            insert(IDEMPOTENCY).values(scope=request.scope, key=request.key, **columns)
        )
    except IntegrityError as error:
        raise IdempotencyConflict(f"key {request.key!r} is held by another request") from error


def _insert_if_absent(conn: AsyncConnection) -> Any:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(IDEMPOTENCY).on_conflict_do_nothing()
