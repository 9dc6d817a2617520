"""The hints asked of the workers (``hint_jobs``), a job queue (``infra.job_queue``).

An API process that runs no AI (``SCOPA_AI_IN_PROCESS=off``) asks for a hint by writing a
row holding the state it is for, and looks for the answer on it; it deletes the row once
answered, or unanswered when its client went away or it gave up, so a hint nobody waits
for is not computed (unless a worker already started on it). A process that runs AI claims
the oldest row nobody holds and no answer fills, and leases it while it decides. A row
older than ``HINT_TTL_SECONDS`` lost its asker (its process died): it is not claimed, and
the hourly purge deletes it.
"""

from __future__ import annotations

import secrets

from sqlalchemy import Table, bindparam, delete, insert, select, update

from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.infra.codec import decode_hint, decode_state, encode
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.job_queue import JobQueue
from scopa.infra.notify import answer_notice, hint_notice
from scopa.infra.sql_store import SqlStore
from scopa.infra.tables import HintJobRow

HINTS: Table = HintJobRow.__table__  # type: ignore[assignment]
QUEUE = JobQueue(HINTS, ("id",), (HINTS.c.asked_at,))

# Longer than any asker waits (service.asked.HINT_WAIT_SECONDS).
HINT_TTL_SECONDS = 30.0

_UNANSWERED = HINTS.c.answer.is_(None)
_CLAIM = QUEUE.claim(_UNANSWERED, HINTS.c.asked_at >= bindparam("since"))


class SqlHints(SqlStore):
    """The asker's side of a hint, then the worker's."""

    @reaching_database
    async def ask_hint(self, match_id: str, state: MatchState, seat: int, level: str) -> str:
        job = secrets.token_urlsafe(12)
        row = {
            "id": job,
            "match_id": match_id,
            "state": encode(state),
            "seat": seat,
            "level": level,
            "asked_at": self.db.clock(),
        }
        async with write_transaction(self.db.engine) as conn:
            await conn.execute(insert(HINTS).values(**row))
            await self.db.announce(conn, hint_notice(match_id, state.seq))
        return job

    @reaching_database
    async def hint_answer(self, job: str) -> tuple[Move, str] | None:
        query = select(HINTS.c.answer).where(QUEUE.at(job))
        row = await self.db.read_one(query)
        return None if row is None or row.answer is None else decode_hint(row.answer)

    @reaching_database
    async def hint_held(self, job: str) -> bool:
        return bool((await self.db.read(QUEUE.held(job, self.db.clock())))[0][0])

    @reaching_database
    async def drop_hint(self, job: str) -> None:
        await self.db.write(QUEUE.drop(job))

    @reaching_database
    async def hint_job(self, job: str) -> tuple[MatchState, int, str] | None:
        query = select(HINTS.c.state, HINTS.c.seat, HINTS.c.level).where(QUEUE.at(job))
        row = await self.db.read_one(query)
        return None if row is None else (decode_state(row.state), row.seat, row.level)

    @reaching_database
    async def answer_hint(self, job: str, move: Move, reason: str) -> None:
        answer = update(HINTS).where(QUEUE.at(job)).values(answer=encode((move, reason)))
        async with write_transaction(self.db.engine) as conn:
            await conn.execute(answer)
            await self.db.announce(conn, answer_notice(job))

    @reaching_database
    async def claim_hint(
        self, lease_seconds: float, by: str = "", full: bool = False
    ) -> str | None:
        """The oldest hint asked for that nobody holds, leased to ``by`` for
        ``lease_seconds``; None when there is none or the claimer is ``full``."""
        if full:
            return None
        now = self.db.clock()
        values = {
            "now": now,
            "until": now + lease_seconds,
            "by": by,
            "since": now - HINT_TTL_SECONDS,
        }
        row = await self.db.write_row(_CLAIM, values)
        return None if row is None else str(row.id)

    @reaching_database
    async def renew_hint(self, job: str, lease_seconds: float, by: str) -> None:
        renew = QUEUE.renew(job, self.db.clock() + lease_seconds, by, _UNANSWERED)
        await self.db.write(renew)

    @reaching_database
    async def purge_hints(self) -> int:
        """Delete the hints whose askers are gone (``HINT_TTL_SECONDS``)."""
        gone = delete(HINTS).where(HINTS.c.asked_at < self.db.clock() - HINT_TTL_SECONDS)
        return (await self.db.write(gone)).rowcount
