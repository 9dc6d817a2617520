"""The reviews of finished matches (``reviews``), and those asked of the workers
(``review_jobs``), a job queue (``infra.job_queue``).

An API process that runs no AI (``SCOPA_AI_IN_PROCESS=off``) asks for a review by writing
its job; asking again changes nothing, so every request for it waits on the same one. A
process that runs AI claims the oldest job nobody holds and leases it while it computes.
Keeping the review deletes the job in the same transaction; a review already kept
stands, so two processes computing one (a lease that lapsed under a slow one) keep one.
"""

from __future__ import annotations

from sqlalchemy import Table, select

from scopa.domain.ai.review import Review
from scopa.infra.codec import decode_review, encode
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.job_queue import JobQueue
from scopa.infra.sql_store import SqlStore
from scopa.infra.tables import ReviewJobRow, ReviewRow

REVIEWS: Table = ReviewRow.__table__  # type: ignore[assignment]
JOBS: Table = ReviewJobRow.__table__  # type: ignore[assignment]
QUEUE = JobQueue(JOBS, ("match_id", "seat"), (JOBS.c.asked_at,))
_CLAIM = QUEUE.claim()


class SqlReviews(SqlStore):
    """Reviews kept, and asked of the processes that run AI."""

    @reaching_database
    async def keep_review(self, match_id: str, review: Review) -> None:
        """Store a finished match's review of one seat; a review already kept stands.
        Whoever asked for it has its answer: the job goes."""
        row = {
            "match_id": match_id,
            "seat": review.seat,
            "body": encode(review),
            "created_at": self.db.clock(),
        }
        async with write_transaction(self.db.engine) as conn:
            await conn.execute(self.db.insert(REVIEWS).values(**row).on_conflict_do_nothing())
            await conn.execute(QUEUE.drop((match_id, review.seat)))

    @reaching_database
    async def review(self, match_id: str, seat: int) -> Review | None:
        query = select(REVIEWS.c.body).where(REVIEWS.c.match_id == match_id, REVIEWS.c.seat == seat)
        row = await self.db.read_one(query)
        return None if row is None else decode_review(row.body)

    @reaching_database
    async def ask_review(self, match_id: str, seat: int) -> None:
        row = {"match_id": match_id, "seat": seat, "asked_at": self.db.clock()}
        await self.db.write(self.db.insert(JOBS).values(**row).on_conflict_do_nothing())

    @reaching_database
    async def review_held(self, match_id: str, seat: int) -> bool:
        return bool((await self.db.read(QUEUE.held((match_id, seat), self.db.clock())))[0][0])

    @reaching_database
    async def claim_review(
        self, lease_seconds: float, by: str = "", full: bool = False
    ) -> tuple[str, int] | None:
        """The oldest review asked for that nobody holds, leased to ``by`` for
        ``lease_seconds``; None when there is none, or when the claimer is ``full``: a
        review never comes before other AI work."""
        if full:
            return None
        now = self.db.clock()
        row = await self.db.write_row(_CLAIM, {"now": now, "until": now + lease_seconds, "by": by})
        return None if row is None else (row.match_id, row.seat)

    @reaching_database
    async def renew_review(self, job: tuple[str, int], lease_seconds: float, by: str) -> None:
        await self.db.write(QUEUE.renew(job, self.db.clock() + lease_seconds, by))
