"""The reviews asked of the workers (``review_jobs``), as ``infra.ai_queue`` is for AI turns.

An API process that runs no AI (``SCOPA_AI_IN_PROCESS=off``) asks for a review by writing
its row; asking again changes nothing, so every request for it waits on the same one. A
process that runs AI claims the oldest row nobody holds, in one statement that skips rows
another claimer holds (``FOR UPDATE SKIP LOCKED`` on Postgres; SQLite has a single
writer), and leases it while it computes. Keeping the review deletes the row in the same
transaction; a process that dies lets its lease lapse, and another takes the review. Two
processes computing one review (a lease that lapsed under a slow one) still keep one.
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
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.infra.tables import ReviewJobRow

JOBS: Table = ReviewJobRow.__table__  # type: ignore[assignment]

Job = tuple[str, int]  # match id, seat


async def ask(conn: AsyncConnection, job: Job, now: float) -> None:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    row = {"match_id": job[0], "seat": job[1], "asked_at": now}
    await conn.execute(dialect.insert(JOBS).values(**row).on_conflict_do_nothing())


async def done(conn: AsyncConnection, job: Job) -> None:
    """In the transaction keeping the review: nobody needs to compute it any more."""
    await conn.execute(delete(JOBS).where(JOBS.c.match_id == job[0], JOBS.c.seat == job[1]))


def claim_statement() -> Any:
    """Lease the oldest review nobody holds at ``:now`` to ``:by`` until ``:until``;
    RETURNING its match id and seat."""
    now: BindParameter[float] = bindparam("now", type_=Double())
    free = (JOBS.c.lease_until.is_(None)) | (JOBS.c.lease_until <= now)
    chosen = (
        select(JOBS.c.match_id, JOBS.c.seat)
        .where(free)
        .order_by(JOBS.c.asked_at)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    return (
        update(JOBS)
        .where(tuple_(JOBS.c.match_id, JOBS.c.seat).in_(chosen))
        .values(
            lease_until=bindparam("until", type_=Double()),
            leased_by=bindparam("by", type_=String()),
        )
        .returning(JOBS.c.match_id, JOBS.c.seat)
    )


def renew_statement(job: Job, now: float, lease_seconds: float, by: str) -> Any:
    """Extend ``by``'s lease on the review, if it still holds it."""
    return (
        update(JOBS)
        .where(JOBS.c.match_id == job[0], JOBS.c.seat == job[1], JOBS.c.leased_by == by)
        .values(lease_until=now + lease_seconds)
    )


def held_statement(job: Job, now: float) -> Any:
    """Whether a process holds the review's lease: it is computing it."""
    leased = exists().where(
        JOBS.c.match_id == job[0], JOBS.c.seat == job[1], JOBS.c.lease_until > now
    )
    return select(leased)
