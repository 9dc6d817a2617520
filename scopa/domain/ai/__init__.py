"""The AI opponents: ``decide`` picks a seat's move at one of four levels.

``decide`` is the one door in: it reduces the match to what the seat may know
(``Knowledge``) and hands only that to the level's strategy, so no strategy can see
another hand or the order of the stock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

from scopa.domain.ai import easy, expert, hard, medium, pimc
from scopa.domain.ai.frozen import expert_v1, hard_v1
from scopa.domain.ai.knowledge import Knowledge, knowledge_of
from scopa.domain.errors import MatchNotActive, NotYourTurn, ScopaError
from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

# The one list of levels: the API's enum, the workers and the tournament read it here.
Level = Literal["easy", "medium", "hard", "expert"]
LEVELS: tuple[Level, ...] = get_args(Level)
# The levels as they were before 0.4.0, kept frozen as tournament opponents only.
FROZEN = ("hard-v1", "expert-v1")
# The public kind of Scopa AI the expert is measured against: tournaments only, too.
SPARRING = ("pimc",)
OPPONENTS: tuple[str, ...] = (*LEVELS, *FROZEN, *SPARRING)
# The share of a time budget the expert spends sampling: the rest absorbs the work before
# and after the samples and a busy machine's jitter, so the budget holds.
CLOCK_SHARE = 0.9


class UnknownLevel(ScopaError, ValueError):
    """No AI level of that name."""


def decide(
    state: MatchState,
    seat: int,
    level: str,
    seed: int,
    budget_ms: float | None = None,
    *,
    samples: int | None = None,
    clock: Callable[[], float] | None = None,
) -> tuple[Move, str]:
    """The move ``level`` plays for ``seat`` (whose turn it must be), and why in a few words.

    Only the expert uses the budget. With ``budget_ms`` None it reads no clock: it plays
    ``samples`` sampled deals (by default as many as take about 40 ms on one core), so
    the same arguments give the same move. With ``budget_ms`` it samples until the clock
    says the time is up, so the move may vary with load. The domain reads no clock of its
    own: a budget needs ``clock`` (seconds), which the caller injects.
    """
    if level not in OPPONENTS:
        raise UnknownLevel(f"unknown AI level {level!r}: one of {', '.join(LEVELS)}")
    if state.status != "active":
        raise MatchNotActive(f"the match is {state.status}")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")
    if budget_ms is not None and clock is None:
        raise ValueError("a time budget needs a clock")
    k = knowledge_of(state, seat)
    return _choose(k, level, SplitMix64(seed), budget_ms, samples, clock)


def _choose(
    k: Knowledge,
    level: str,
    rng: SplitMix64,
    budget_ms: float | None,
    samples: int | None,
    clock: Callable[[], float] | None,
) -> tuple[Move, str]:
    if level == "easy":
        return easy.choose(k, rng)
    if level == "medium":
        return medium.choose(k, rng)
    if level == "hard":
        return hard.choose(k, rng)
    if level == "hard-v1":
        return hard_v1.choose(k)
    if level == "pimc":
        return pimc.choose(k, rng)
    search = expert.choose if level == "expert" else expert_v1.choose
    if budget_ms is None or clock is None:
        return search(k, rng, samples)
    deadline = clock() + budget_ms * CLOCK_SHARE / 1000.0
    return search(k, rng, samples, lambda: deadline - clock())


__all__ = [
    "LEVELS",
    "OPPONENTS",
    "SPARRING",
    "Knowledge",
    "Level",
    "UnknownLevel",
    "decide",
    "knowledge_of",
]
