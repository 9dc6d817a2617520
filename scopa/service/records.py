"""What a match shows: its view, its events as a page or a stream, its scores, and once
it is over its whole record and the coach's review of a seat."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import TypeVar

from scopa.contract.events import EventView, for_viewer
from scopa.contract.scoring import deal_score_view, tally_view
from scopa.contract.views import MatchView, fairness, match_view
from scopa.domain.ai.review import Review
from scopa.domain.events import DealStarted, Redeal
from scopa.domain.scoring import tally
from scopa.service.answers import Record, Scores
from scopa.service.callers import Caller, Callers
from scopa.service.errors import MatchNotFinished
from scopa.service.feed import EventPage, Feed
from scopa.service.ports import EventBus, MatchObserver, MatchReads
from scopa.service.reviews import Reviews

Rendered = TypeVar("Rendered")


class Records:
    def __init__(
        self,
        callers: Callers,
        reads: MatchReads,
        bus: EventBus,
        reviews: Reviews,
        observer: MatchObserver,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.reads = reads
        self.callers = callers
        self.reviews = reviews
        self.observer = observer
        self.feed = Feed(reads, bus, self._last_seq, monotonic)

    async def view(self, caller: Caller) -> MatchView:
        record = caller.record
        state = await self.callers.as_left(record.state)
        return match_view(caller.match_id, state, caller.seat, deadline=record.due_at)

    async def events(self, caller: Caller, after: int, wait: float) -> EventPage:
        return await self.feed.page(caller.match_id, caller.seat, _seen(caller, after), wait)

    async def stream(
        self, caller: Caller, after: int, seconds: float, render: Callable[[EventView], Rendered]
    ) -> AsyncGenerator[Sequence[Rendered] | None, None]:
        """The caller's events as they happen (``Feed.stream``), each as ``render`` makes
        it, counted open from its first read to its end."""
        finished = caller.record.state.status == "finished"
        events = self.feed.stream(
            caller.match_id, caller.seat, _seen(caller, after), seconds, finished, render
        )
        self.observer.stream_opened()
        try:
            # Closed with this stream, not whenever the collector gets to it.
            async with aclosing(events):
                async for event in events:
                    yield event
        finally:
            self.observer.stream_closed()

    def close_streams(self) -> None:
        """At shutdown: streams end, so their clients reconnect to another process."""
        self.feed.close()

    async def _last_seq(self, match_id: str) -> int:
        return (await self.callers.load(match_id)).state.seq

    async def scores(self, caller: Caller) -> Scores:
        state = caller.record.state
        current = None
        if state.status == "active":
            current = tally_view(tally(state.rules, state.deal, state.piles, state.sweeps))
        deal_scores = tuple(map(deal_score_view, state.deal_scores))
        return Scores(state.scores, deal_scores, state.winner, current)

    async def review(self, caller: Caller, seat: int, *, compute: bool = True) -> Review | None:
        """The expert's judgement of each card ``seat`` played in the finished match;
        without ``compute``, only the refusal it would meet (None)."""
        if not compute:
            self.reviews.check(caller.record, seat)
            return None
        return await self.reviews.of(caller.record, seat)

    async def compute_review(self, job: tuple[str, int]) -> None:
        """Compute and keep the review of (match, seat) asked of the processes that run AI
        (``review_queue``), in one of them."""
        await self.reviews.compute(*job)

    async def record(self, caller: Caller) -> Record:
        """A finished match whole: the seed, every deck and every hand."""
        state = caller.record.state
        if state.status != "finished":
            raise MatchNotFinished(f"the match is {state.status}: its record is for the end")
        stored = await self.reads.events(caller.match_id, 0, state.seq)
        revealed = fairness(state)
        return Record(
            match=match_view(caller.match_id, state, None),
            seed=None if revealed is None else revealed.seed,
            # Matches stored before the decks were kept in the log list none.
            decks=tuple(e.deck for e in stored if isinstance(e, Redeal | DealStarted) and e.deck),
            first_dealer=state.first_dealer,
            events=tuple(for_viewer(e, None, every_hand=True) for e in stored),
        )


def _seen(caller: Caller, after: int) -> int:
    """A seq past the match's latest cannot have been seen: the caller resumes from the
    latest (what a follower waits for is the next event, whatever it claimed)."""
    return min(after, caller.record.state.seq)
