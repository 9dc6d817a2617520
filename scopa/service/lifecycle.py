"""When a match's next moment comes, and what happens when it passes (docs/api.md, "Ending
a match early, and turn clocks").

The domain knows how a match ends; this knows when. Each change stores the match's
``due_at``: for a waiting match the end of its wait, for a human seat's turn the end of
its clock or of the idle time; nothing for an AI's turn or a finished match. Whichever
process finds a match past its ``due_at`` makes the change it calls for, stored at the
version it was decided on like any other change, so there is exactly one per moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, abandon, expire, human_to_play, on_the_clock, time_out
from scopa.domain.moves import Move

# The level whose move is played for a seat whose time ran out (docs/api.md).
AUTOPLAY_LEVEL = "hard"


@dataclass(frozen=True)
class Lifecycle:
    """How long a match may wait for players, a human's turn without a clock, and one in
    a rated match, in seconds (SCOPA_WAITING_TTL_SECONDS, SCOPA_IDLE_TTL_SECONDS,
    SCOPA_RATED_IDLE_TTL_SECONDS). A rated turn is short: its passing loses the match."""

    waiting_ttl: float = 3600.0
    idle_ttl: float = 604_800.0
    rated_idle_ttl: float = 300.0

    def due_at(self, state: MatchState, created_at: float, now: float) -> float | None:
        """The next moment of ``state``, stored ``now`` for a match created at
        ``created_at``: a turn's time runs from the change that gave it the turn."""
        if state.status == "waiting":
            return created_at + self.waiting_ttl
        if human_to_play(state) is None:
            return None
        if state.rules.turn_seconds is not None:
            return now + state.rules.turn_seconds
        return now + (self.rated_idle_ttl if state.rated else self.idle_ttl)


def lapses(state: MatchState) -> bool:
    """Whether passing its moment changes the match (false for one that moved on since)."""
    return state.status == "waiting" or human_to_play(state) is not None


def autoplays(state: MatchState) -> int | None:
    """The seat the AI must choose a move for when the moment passes, if any."""
    seat = on_the_clock(state)
    return seat if seat is not None and state.rules.on_timeout == "autoplay" else None


def lapse(state: MatchState, autoplay: Move | None = None) -> tuple[MatchState, list[StoredEvent]]:
    """The change the passed moment calls for: a waiting match expires, a turn on the clock
    times out (``autoplay``: the move chosen for it), any other human turn is abandoned
    (a rated match's lost by the seat's team)."""
    if state.status == "waiting":
        return expire(state)
    if on_the_clock(state) is not None:
        return time_out(state, autoplay)
    return abandon(state)
