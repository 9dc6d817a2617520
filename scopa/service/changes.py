"""What every change to a match goes through, whoever makes it: decided on a version and
stored at it, retried on a lost race, remembered, announced, and the match's passed
moment met first.

The store is the only authority, so any number of processes can serve one database. A
change is stored only if the match is still at the version it was decided on; on a lost
race the use case reloads and decides again (``until_stored``), so the loser gets the
answer the new state deserves, never a double move.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import msgspec

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, ai_to_play, legal_moves
from scopa.domain.moves import Move
from scopa.service.callers import Callers
from scopa.service.errors import Busy
from scopa.service.lifecycle import AUTOPLAY_LEVEL, Lifecycle, autoplays, lapse, lapses
from scopa.service.ports import (
    AiPlayer,
    Answer,
    Change,
    EventBus,
    MatchObserver,
    MatchRecord,
    MatchRepository,
    VersionConflict,
)
from scopa.service.recent import RecentMatches

log = logging.getLogger(__name__)

# A lost race costs one reload; more than a handful in a row means the store misbehaves.
ATTEMPTS = 8
# Announcing a stored change may fail (the database may be what is failing): the answer
# waits on it no longer than this.
PUBLISH_SECONDS = 1.0

T = TypeVar("T")


class Changes:
    def __init__(
        self,
        matches: MatchRepository,
        callers: Callers,
        bus: EventBus,
        recent: RecentMatches,
        observer: MatchObserver,
        *,
        ai: AiPlayer | None,
        lifecycle: Lifecycle,
        clock: Callable[[], float] = time.time,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        self.matches = matches
        self.callers = callers
        self.bus = bus
        self.recent = recent
        self.observer = observer
        self.ai = ai
        self.lifecycle = lifecycle
        self.clock = clock
        self.on_change = on_change

    async def until_stored(
        self,
        match_id: str,
        record: MatchRecord | None,
        decide: Callable[[MatchRecord, bool], Awaitable[T]],
        fresh: bool = False,
    ) -> T:
        """``decide`` on the match (``record``, else as stored; ``fresh``: just read from
        the store) until what it decided is stored: a VersionConflict (another change came
        first) reloads the match and decides again, ATTEMPTS times, then Busy."""
        for _ in range(ATTEMPTS):
            if record is None:
                record, fresh = await self.callers.load(match_id), True
            try:
                return await decide(record, fresh)
            except VersionConflict:
                record = None
        raise Busy("the match kept changing; try again")

    async def store(
        self, record: MatchRecord, state: MatchState, events: list[StoredEvent]
    ) -> MatchRecord:
        """A change the server makes itself (no token, no key), saved at the version it was
        decided on, else VersionConflict; the match as now stored."""
        due_at = self.due_at(record, state)
        await self.write(Change(record.id, record.state.version, state, tuple(events), due_at))
        await self.saved(record, state, due_at)
        return msgspec.structs.replace(record, state=state, due_at=due_at)

    async def write(
        self,
        change: Change,
        token_hashes: Mapping[int, str] | None = None,
        answer: Answer | None = None,
    ) -> None:
        """Store one change to a match, with the seats it fills and the idempotent answer
        to keep, in one unit of work."""
        async with self.matches.unit_of_work() as uow:
            uow.change(change, token_hashes)
            uow.keep_answer(answer)
            await uow.commit()

    async def saved(
        self,
        before: MatchRecord,
        state: MatchState,
        due_at: float | None,
        token_hash: str | None = None,
        seat: int | None = None,
    ) -> None:
        """After a save: remember the match as saved, note an ending, wake its waiters."""
        saved = msgspec.structs.replace(before, state=state, due_at=due_at)
        self.recent.remember(saved, token_hash, seat)
        if state.status == "finished" and before.state.status != "finished":
            self.observer.match_finished(state.end_reason or "score")
        await self.publish(before.id, state)

    async def publish(self, match_id: str, state: MatchState) -> None:
        # The change is stored: a lost wake-up only delays waiters until their timer.
        try:
            async with asyncio.timeout(PUBLISH_SECONDS):
                await self.bus.publish(match_id, state.seq)
        except Exception:
            log.warning("could not announce match %s seq %d", match_id, state.seq, exc_info=True)

    def changed(self, match_id: str, state: MatchState) -> None:
        """A stored change that leaves an AI to play: this process's runner is told."""
        if self.on_change is not None and ai_to_play(state) is not None:
            self.on_change(match_id)

    def overdue(self, record: MatchRecord) -> bool:
        return record.due_at is not None and record.due_at <= self.clock() and lapses(record.state)

    def due_at(self, record: MatchRecord, state: MatchState) -> float | None:
        """The next moment of ``state``, a change to ``record`` being stored now."""
        return self.lifecycle.due_at(state, record.created_at, self.clock())

    async def passed(self, match_id: str) -> MatchRecord:
        """Make the change the match's passed moment calls for, if it is still due (expire
        it, time its turn out, under autoplay with the hard AI's move, or abandon it);
        the match as it then stands."""

        async def lapsed(record: MatchRecord, fresh: bool) -> MatchRecord:
            if not self.overdue(record):
                return record
            before = record.state
            seat = autoplays(before)
            move = None if seat is None else await self.ai_choice(before, seat, AUTOPLAY_LEVEL)
            state, events = lapse(before, move)
            stored = await self.store(record, state, events)
            if move is not None:
                self.observer.move_played("ai")  # the autoplay decided it, not the human
            self.changed(match_id, state)
            return stored

        return await self.until_stored(match_id, None, lapsed)

    async def ai_choice(self, state: MatchState, seat: int, level: str) -> Move:
        """The move ``level`` plays for ``seat``."""
        try:
            if self.ai is not None:
                move, _ = await self.ai.decide(state, seat, level, ai_seed(state))
                return move
        except (asyncio.CancelledError, VersionConflict):
            raise
        except Exception:
            # A failing AI must not leave the match stuck: log it and play a legal move.
            log.exception("AI %s failed on seat %d; playing the first legal move", level, seat)
        return legal_moves(state)[0]


def ai_seed(state: MatchState) -> int:
    """Deterministic per match and version, so a retried decision is the same decision.

    Drawn from the match's AI secret, never from its generator, whose state decides the
    shuffles to come; a match stored before it had one keeps its generator, as then."""
    secret = state.ai_secret or state.rng
    return (secret ^ (state.version * 0x9E3779B97F4A7C15)) & ((1 << 63) - 1)
