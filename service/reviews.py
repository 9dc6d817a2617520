"""The coach: a finished match's review of one seat, computed once by the AI and kept.

A review costs seconds of AI time, so concurrent requests for the same one in a process
wait on a single computation, and every later request reads the stored result. Several
processes may compute the same review at once; the first one kept is the one served.
"""

from __future__ import annotations

import asyncio

from domain.ai.review import Review
from domain.errors import NoSuchSeat
from service.errors import MatchNotFinished, UnknownLevel
from service.ports import AiPlayer, MatchReads, MatchRecord, MatchRepository


class Reviews:
    def __init__(self, matches: MatchRepository, reads: MatchReads, ai: AiPlayer | None) -> None:
        self.matches = matches
        self.reads = reads
        self.ai = ai
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
        kept = await self.reads.review(record.id, seat)
        if kept is not None:
            return kept
        key = (record.id, seat)
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._compute(record, seat))
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        # A client that goes away leaves the computation to the others, and to the store.
        return await asyncio.shield(running)

    async def _compute(self, record: MatchRecord, seat: int) -> Review:
        if self.ai is None:
            raise UnknownLevel("this server runs no AI: reviews are not available")
        initial = await self.reads.initial(record.id)
        if initial is None:  # the match row holds it; gone only with the match
            raise MatchNotFinished("the match's start is not kept: it cannot be reviewed")
        events = await self.reads.events(record.id, 0, record.state.seq)
        review = await self.ai.review(initial, events, seat)
        await self.matches.keep_review(record.id, review)
        return await self.reads.review(record.id, seat) or review
