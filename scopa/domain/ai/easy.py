"""Easy: four times in ten a random card, otherwise whatever takes the most cards."""

from __future__ import annotations

from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

RANDOM_IN_TEN = 4


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if rng.below(10) < RANDOM_IN_TEN:
        card = k.hand[rng.below(len(k.hand))]
        mine = [m for m in moves if m.card == card]
        return mine[rng.below(len(mine))], "plays a card without thinking"
    best = max(moves, key=lambda m: len(m.capture))
    if not best.capture:
        return best, "nothing to take"
    return best, f"takes the most cards ({len(best.capture) + 1})"
