"""Reviews in a process that runs no AI: asked of the workers, once, and read back once a
worker kept them; never a wait without end when no worker comes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import msgspec
import pytest

from scopa.domain.ai.review import Review
from scopa.domain.match import Seat, new_match
from scopa.domain.rules import make_rules
from scopa.service.asked import REVIEW_WAIT_SECONDS, UNATTENDED_SECONDS
from scopa.service.errors import AiUnavailable
from scopa.service.ports import MatchRecord
from scopa.service.reviews import Reviews
from tests.fakes import FakeStore

DONE = "finished-match"


@dataclass
class FakeQueue:
    """The review queue: what was asked, and whether a worker holds it (``held``)."""

    asked: list[tuple[str, int]] = field(default_factory=list)
    held: bool = False
    heard: asyncio.Event = field(default_factory=asyncio.Event)

    async def ask_review(self, match_id: str, seat: int) -> None:
        self.asked.append((match_id, seat))
        self.heard.set()

    async def review_held(self, match_id: str, seat: int) -> bool:
        return self.held


class Ticking:
    """A monotonic clock that moves ``step`` seconds at each reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def finished() -> MatchRecord:
    state, _ = new_match(make_rules(), (Seat("human"), Seat("human")), 3, first_dealer=0)
    return MatchRecord(DONE, msgspec.structs.replace(state, status="finished"), 0.0)


def asking(store: FakeStore, queue: FakeQueue, clock: Ticking) -> Reviews:
    """Reviews as an API process without AI has them (no AI of its own to compute)."""
    return Reviews(
        store, store.reads, store.reads, store.reads, None, queue, clock, poll_seconds=0.001
    )


async def test_concurrent_requests_ask_once_and_read_what_the_worker_kept() -> None:
    store, queue = FakeStore(), FakeQueue()
    reviewing = asking(store, queue, Ticking(0.01))
    kept = Review(seat=1, moves=(), total_loss=0.0)

    async def worker() -> None:
        await queue.heard.wait()
        queue.held = True
        await asyncio.sleep(0.05)  # computing
        await store.reads.keep_review(DONE, kept)

    record = finished()
    got = await asyncio.gather(*(reviewing.of(record, 1) for _ in range(3)), worker())
    assert got[:3] == [kept] * 3
    assert queue.asked == [(DONE, 1)]
    assert await reviewing.of(record, 1) == kept  # later: read back, nothing asked
    assert queue.asked == [(DONE, 1)]


async def test_no_worker_answers_ai_unavailable_in_bounded_time() -> None:
    store, queue = FakeStore(ai_capacity=0), FakeQueue()
    clock = Ticking(0.01)
    reviewing = asking(store, queue, clock)
    with pytest.raises(AiUnavailable, match="no process runs AI now"):
        await reviewing.of(finished(), 0)
    assert queue.asked == [(DONE, 0)]
    assert UNATTENDED_SECONDS <= clock.now < UNATTENDED_SECONDS + 0.1


async def test_a_review_held_by_a_worker_is_waited_for_while_no_worker_beats() -> None:
    """A worker whose heartbeat is not heard but which holds (renews) the review's lease is
    computing it: the request waits on past the unattended bound."""
    store = FakeStore(ai_capacity=0)
    clock = Ticking(0.1)
    kept = Review(seat=0, moves=(), total_loss=0.0)

    class Computing(FakeQueue):
        async def review_held(self, match_id: str, seat: int) -> bool:
            if clock.now > 2 * UNATTENDED_SECONDS:
                await store.reads.keep_review(DONE, kept)  # done, at the next look
            return True

    assert await asking(store, Computing(), clock).of(finished(), 0) == kept


async def test_workers_that_never_take_it_end_the_wait_and_leave_it_asked() -> None:
    store, queue = FakeStore(ai_capacity=1), FakeQueue()
    clock = Ticking(1.0)
    reviewing = asking(store, queue, clock)
    with pytest.raises(AiUnavailable, match="no AI process answered in 30 s"):
        await reviewing.of(finished(), 0)
    assert REVIEW_WAIT_SECONDS <= clock.now <= REVIEW_WAIT_SECONDS + 2
