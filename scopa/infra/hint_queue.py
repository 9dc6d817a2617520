"""The hints asked of the workers (``hint_jobs``), as ``infra.ai_queue`` is for AI turns.

An API process that runs no AI (``SCOPA_AI_IN_PROCESS=off``) asks for a hint by writing a
row holding the state it is for, and looks for the answer on it; it deletes the row once
answered, or unanswered when its client went away or it gave up, so a hint nobody waits
for is not computed (unless a worker already started on it). A process that runs AI claims
the oldest row nobody holds and no answer fills, in one statement that skips rows another
claimer holds (``FOR UPDATE SKIP LOCKED`` on Postgres; SQLite has a single writer), and
leases it while it decides. A row older than ``HINT_TTL_SECONDS`` lost its asker (its
process died): it is not claimed, and the hourly purge deletes it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BindParameter,
    Double,
    String,
    Table,
    bindparam,
    delete,
    exists,
    select,
    update,
)

from scopa.infra.tables import HintJobRow

HINTS: Table = HintJobRow.__table__  # type: ignore[assignment]

# Longer than any asker waits (service.asked.HINT_WAIT_SECONDS).
HINT_TTL_SECONDS = 30.0


def claim_statement() -> Any:
    """Lease the oldest hint unanswered and held by nobody at ``:now``, asked since
    ``:since``, to ``:by`` until ``:until``; RETURNING its id."""
    now: BindParameter[float] = bindparam("now", type_=Double())
    free = (HINTS.c.lease_until.is_(None)) | (HINTS.c.lease_until <= now)
    chosen = (
        select(HINTS.c.id)
        .where(free, HINTS.c.answer.is_(None), HINTS.c.asked_at >= bindparam("since"))
        .order_by(HINTS.c.asked_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    return (
        update(HINTS)
        .where(HINTS.c.id == chosen)
        .values(
            lease_until=bindparam("until", type_=Double()),
            leased_by=bindparam("by", type_=String()),
        )
        .returning(HINTS.c.id)
    )


def renew_statement(job: str, now: float, lease_seconds: float, by: str) -> Any:
    return (
        update(HINTS)
        .where(HINTS.c.id == job, HINTS.c.leased_by == by, HINTS.c.answer.is_(None))
        .values(lease_until=now + lease_seconds)
    )


def held_statement(job: str, now: float) -> Any:
    return select(exists().where(HINTS.c.id == job, HINTS.c.lease_until > now))


def drop_statement(job: str) -> Any:
    return delete(HINTS).where(HINTS.c.id == job)


def purge_statement(older_than: float) -> Any:
    return delete(HINTS).where(HINTS.c.asked_at < older_than)
