"""The Idempotency-Keys (``idempotency``): claimed by a request before it runs, filled
with its answer by the change it made (``keep_answer``, in that change's transaction), so
that a retry gets the first answer; released when the request failed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.sql_store import SqlDatabase, SqlStore
from scopa.infra.tables import IdempotencyRow
from scopa.service.ports import Idempotency, IdempotencyConflict, StoredAnswer

IDEMPOTENCY: Table = IdempotencyRow.__table__  # type: ignore[assignment]

# A claim this old belongs to a request that crashed: its key may be claimed again.
CLAIM_TTL = 60.0


def _key(request: Idempotency) -> tuple[Any, ...]:
    return (IDEMPOTENCY.c.scope == request.scope, IDEMPOTENCY.c.key == request.key)


def _claimed(request: Idempotency) -> tuple[Any, ...]:
    """The request's own claim, not yet answered."""
    return (
        *_key(request),
        IDEMPOTENCY.c.fingerprint == request.fingerprint,
        IDEMPOTENCY.c.body.is_(None),
    )


class SqlAnswers(SqlStore):
    def __init__(self, db: SqlDatabase, *, claim_ttl: float = CLAIM_TTL) -> None:
        super().__init__(db)
        self._claim_ttl = claim_ttl

    @reaching_database
    async def begin_idempotent(self, request: Idempotency) -> StoredAnswer | None:
        now = self.db.clock()
        claim = (
            self.db.insert(IDEMPOTENCY)
            .on_conflict_do_nothing()
            .values(
                scope=request.scope,
                key=request.key,
                fingerprint=request.fingerprint,
                created_at=now,
            )
        )
        async with write_transaction(self.db.engine) as conn:
            if (await conn.execute(claim)).rowcount == 1:
                return None
            held = (await conn.execute(select(IDEMPOTENCY).where(*_key(request)))).one_or_none()
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
                    *_key(request),
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
        await self.db.write(delete(IDEMPOTENCY).where(*_claimed(request)))

    @reaching_database
    async def purge_idempotency(self, older_than: float) -> int:
        """Forget keys claimed or answered before ``older_than`` (unix seconds); keep at
        least 24 hours' worth. Returns how many were dropped."""
        purge = delete(IDEMPOTENCY).where(IDEMPOTENCY.c.created_at < older_than)
        return (await self.db.write(purge)).rowcount


async def keep_answer(
    conn: AsyncConnection,
    request: Idempotency,
    answer: StoredAnswer,
    now: float,
) -> None:
    """In the transaction of the change that answers: fill in the request's claim; the 24
    hours of keeping run from now."""
    columns = {
        "fingerprint": answer.fingerprint,
        "body": answer.body,
        "created_at": now,
    }
    filled = await conn.execute(update(IDEMPOTENCY).where(*_claimed(request)).values(**columns))
    if filled.rowcount == 1:
        return
    # No claim of ours (released, purged or never taken): keep the answer unless another
    # request holds the key, in which case this whole change must not happen.
    try:
        await conn.execute(
            IDEMPOTENCY.insert().values(scope=request.scope, key=request.key, **columns)
        )
    except IntegrityError as error:
        raise IdempotencyConflict(f"key {request.key!r} is held by another request") from error
