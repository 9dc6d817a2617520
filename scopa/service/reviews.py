"""The coach: a finished match's review of one seat, computed once by the AI and kept.

A review costs seconds of AI time, so concurrent requests for the same one in a process
wait on a single computation, and every later request reads the stored result. A process
that runs AI computes the review itself; one that runs none (the API with
SCOPA_AI_IN_PROCESS off) asks the processes that do through ``queue``, and waits until
one has kept it. Of several processes computing the same review at once, the first one
kept is the one served.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from scopa.domain.ai.review import Review
from scopa.domain.errors import NoSuchSeat
from scopa.service.asked import REVIEW_POLL_SECONDS, REVIEW_WAIT_SECONDS, answered
from scopa.service.errors import MatchNotFinished, MatchNotFound, UnknownLevel
from scopa.service.ports import (
    AiPlayer,
    AiTurns,
    KeptReviews,
    MatchReads,
    MatchRecord,
    MatchRepository,
    ReviewQueue,
)


class Reviews:
    def __init__(
        self,
        matches: MatchRepository,
        kept: KeptReviews,
        reads: MatchReads,
        turns: AiTurns,
        ai: AiPlayer | None,
        queue: ReviewQueue | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        poll_seconds: float = REVIEW_POLL_SECONDS,
    ) -> None:
        self.matches = matches
        self.kept = kept
        self.reads = reads
        self.turns = turns
        self.ai = ai
        self.queue = queue
        self.monotonic = monotonic
        self.poll_seconds = poll_seconds
        self._running: dict[tuple[str, int], asyncio.Future[Review]] = {}

    def check(self, record: MatchRecord, seat: int) -> None:
        """The refusal ``of`` would give, if any, computing nothing."""
        state = record.state
        if not 0 <= seat < state.players:
            raise NoSuchSeat(f"seat {seat} does not exist in a {state.players}-player match")
        if state.status != "finished":
            raise MatchNotFinished(f"the match is {state.status}: a review is for the end")

    async def of(self, record: MatchRecord, seat: int) -> Review:
        self.check(record, seat)
        kept = await self.kept.review(record.id, seat)
        if kept is not None:
            return kept
        key = (record.id, seat)
        running = self._running.get(key)
        if running is None:
            # As hints are: asked of the processes that run AI when this one runs none.
            work = (
                self._asked(self.queue, record, seat)
                if self.ai is None and self.queue is not None
                else self._compute(record, seat)
            )
            running = asyncio.ensure_future(work)
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        # A client that goes away leaves the computation to the others, and to the store.
        return await asyncio.shield(running)

    async def compute(self, match_id: str, seat: int) -> None:
        """Compute and keep the review asked of this process (it runs AI), unless kept."""
        kept = await self.kept.review(match_id, seat)
        if kept is not None:  # asked for as it was being kept: keeping again ends the asking
            await self.kept.keep_review(match_id, kept)
            return
        record = await self.matches.get(match_id)
        if record is None:  # asked for only of a match that exists, and a match stays
            raise MatchNotFound(f"match {match_id} is gone")
        self.check(record, seat)
        await self._compute(record, seat)

    async def _compute(self, record: MatchRecord, seat: int) -> Review:
        if self.ai is None:
            raise UnknownLevel("this server runs no AI: reviews are not available")
        initial = await self.reads.initial(record.id)
        if initial is None:  # the match row holds it; gone only with the match
            raise MatchNotFinished("the match's start is not kept: it cannot be reviewed")
        events = await self.reads.events(record.id, 0, record.state.seq)
        review = await self.ai.review(initial, events, seat)
        await self.kept.keep_review(record.id, review)
        return await self.kept.review(record.id, seat) or review

    async def _asked(self, queue: ReviewQueue, record: MatchRecord, seat: int) -> Review:
        """The review once a process that runs AI has kept it, or AiUnavailable (the review
        stays asked for: a later request may find it kept)."""
        await queue.ask_review(record.id, seat)
        return await answered(
            lambda: self.kept.review(record.id, seat),
            lambda: queue.review_held(record.id, seat),
            self.turns.ai_capacity,
            self.monotonic,
            lambda: asyncio.sleep(self.poll_seconds),
            REVIEW_WAIT_SECONDS,
        )
