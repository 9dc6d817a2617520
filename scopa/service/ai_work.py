"""The AI's work: its seats' turns, and the hints it gives a seat.

Several processes may play one match's AI turn at once: the store takes the first move
decided on the version, and the others are told no. A hint is decided by this process's
AI, or, in a process that runs none, asked of the processes that do (``HintQueue``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from scopa.contract.views import move_view
from scopa.domain.ai import LEVELS
from scopa.domain.errors import MatchNotActive, NotYourTurn
from scopa.domain.match import MatchState, ai_to_play, play
from scopa.domain.moves import Move
from scopa.service.answers import Hint
from scopa.service.asked import HINT_POLL_SECONDS, HINT_WAIT_SECONDS, answered
from scopa.service.callers import Caller
from scopa.service.changes import Changes, ai_seed
from scopa.service.errors import InvalidToken, UnknownLevel
from scopa.service.ports import (
    AiBacklog,
    AiPlayer,
    AiTurns,
    HintQueue,
    MatchObserver,
    MatchReads,
    VersionConflict,
)


def ai_levels(ai: AiPlayer | None, hint_queue: HintQueue | None) -> tuple[str, ...]:
    """The levels AI seats and hints may have: this process's AI's, or every level when
    the processes that run AI are asked (``hint_queue``); none without AI."""
    if ai is not None:
        return ai.levels
    return LEVELS if hint_queue is not None else ()


class AiWork:
    def __init__(
        self,
        changes: Changes,
        reads: MatchReads,
        turns: AiTurns,
        observer: MatchObserver,
        *,
        ai: AiPlayer | None,
        hint_queue: HintQueue | None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.changes = changes
        self.reads = reads
        self.turns = turns
        self.observer = observer
        self.ai = ai
        self.hint_queue = hint_queue
        self.monotonic = monotonic
        self.levels = ai_levels(ai, hint_queue)

    async def play_ai_turn(self, match_id: str) -> bool:
        """Play the AI seat's turn, if an AI is to play; whether a move was stored."""
        changes = self.changes
        record = await changes.matches.get(match_id) if self.ai is not None else None
        if record is None:
            return False
        before = record.state
        seat = ai_to_play(before)
        if seat is None:
            return False
        level = before.seats[seat].level or "hard"
        state, events = play(before, seat, await changes.ai_choice(before, seat, level))
        try:
            await changes.store(record, state, events)
        except VersionConflict:
            return False
        self.observer.move_played("ai")
        changes.changed(match_id, state)
        return True

    async def advance_ai(self, match_id: str) -> None:
        """Play the AI seats' turns until a human's turn, the end, or a lost race (then
        the winner's move is the one stored)."""
        while await self.play_ai_turn(match_id):
            pass

    def check_hint(self, caller: Caller, level: str) -> int:
        """The seat ``hint`` would ask for, or the refusal it would give; the AI itself is
        not asked."""
        if caller.seat is None:
            raise InvalidToken("a hint is for a seat: send its token")
        if level not in self.levels:
            levels = ", ".join(self.levels) or "none"
            raise UnknownLevel(f"unknown level {level!r}: one of {levels}")
        state = caller.record.state
        if state.status != "active":
            raise MatchNotActive(f"the match is {state.status}")
        if state.turn != caller.seat:
            raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {caller.seat}'s")
        return caller.seat

    async def hint(self, caller: Caller, level: str) -> Hint:
        seat = self.check_hint(caller, level)
        state = caller.record.state
        if self.ai is not None:
            move, reason = await self.ai.decide(state, seat, level, ai_seed(state))
        else:
            assert self.hint_queue is not None  # else no level passes check_hint
            move, reason = await self._asked_hint(
                self.hint_queue, caller.match_id, state, seat, level
            )
        view = move_view(state, move)
        return Hint(view.card, view.capture, view.sweep, level, reason)

    async def _asked_hint(
        self, queue: HintQueue, match_id: str, state: MatchState, seat: int, level: str
    ) -> tuple[Move, str]:
        """The hint decided by a process that runs AI. Its request is deleted however this
        ends: answered, given up, or cancelled as the client went away (then, unless a
        worker started on it, nobody decides it)."""
        job = await queue.ask_hint(match_id, state, seat, level)
        try:
            return await answered(
                lambda: queue.hint_answer(job),
                lambda: queue.hint_held(job),
                self.turns.ai_capacity,
                self.monotonic,
                lambda: self.changes.bus.wait(job, 0, HINT_POLL_SECONDS),
                HINT_WAIT_SECONDS,
            )
        finally:
            await asyncio.shield(queue.drop_hint(job))

    async def compute_hint(self, job: str) -> None:
        """Decide a hint asked of the processes that run AI (``hint_queue``), in one."""
        # Wired only in a process that runs AI, which has both.
        assert self.ai is not None
        assert self.hint_queue is not None
        asked = await self.hint_queue.hint_job(job)
        if asked is None:
            return  # its client went away
        state, seat, level = asked
        move, reason = await self.ai.decide(state, seat, level, ai_seed(state))
        await self.hint_queue.answer_hint(job, move, reason)

    async def ready(self) -> bool:
        """Raise if the database does not answer; whether any process can play AI turns
        (a missing AI capacity is told, not a reason to take this process out)."""
        await self.reads.ping()
        return await self.ai_capacity() > 0

    async def ai_capacity(self) -> int:
        return await self.turns.ai_capacity()

    async def ai_backlog(self) -> AiBacklog:
        return await self.turns.ai_backlog()
