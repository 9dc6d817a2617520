"""Easy: half the time a random card, otherwise whatever takes the most cards."""

from __future__ import annotations

from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

# Screened against medium (docs/ai.md): at 5 in ten easy is a step of 150 to 200 below
# medium on the Elo scale, as medium is below hard.
RANDOM_IN_TEN = 5


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if rng.below(10) < RANDOM_IN_TEN:
        return without_thinking(k, moves, rng)
    best = max(moves, key=lambda m: len(m.capture))
    if not best.capture:
        return best, "nothing to take"
    return best, f"takes the most cards ({len(best.capture) + 1})"


def without_thinking(k: Knowledge, moves: list[Move], rng: SplitMix64) -> tuple[Move, str]:
    """A card of the hand at random, then one of its ``moves`` at random: the slip a
    beginner makes, which the easier levels make on purpose now and then."""
    card = k.hand[rng.below(len(k.hand))]
    mine = [m for m in moves if m.card == card]
    return mine[rng.below(len(mine))], "plays a card without thinking"
