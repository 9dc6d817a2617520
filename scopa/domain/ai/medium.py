"""Medium: weighs every capture; when it cannot capture, drops its least useful card.

Once in ten it plays a card without thinking, the slip easy makes half the time: screened
with easy's share so that easy to medium and medium to hard are each a step of 150 to 200
on the Elo scale (docs/ai.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from scopa.domain.ai.easy import without_thinking
from scopa.domain.ai.evaluate import SWEEP, card_weights, discard_order_key
from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.cards import KING_OF_DIAMONDS, SETTEBELLO, VALUE
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

RANDOM_IN_TEN = 1


def capture_gain(k: Knowledge, move: Move, weights: Sequence[float]) -> float:
    """What a capture brings: the cards taken, the card that took them, a sweep."""
    if not move.capture:
        return 0.0
    gain = weights[move.card] + sum(weights[c] for c in move.capture)
    return gain + SWEEP if k.is_sweep(move) else gain


def capture_reason(k: Knowledge, move: Move) -> str:
    cards = (move.card, *move.capture)
    king_scores = k.rules.king_of_diamonds
    if k.is_sweep(move):
        return "sweeps the table"
    if SETTEBELLO in cards:
        return "takes the settebello"
    if king_scores and KING_OF_DIAMONDS in cards:
        return "takes the king of diamonds"
    sevens = sum(VALUE[c] == 7 for c in move.capture)
    if sevens:
        return "takes a seven" if sevens == 1 else f"takes {sevens} sevens"
    return f"takes {len(cards)} cards"


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if rng.below(10) < RANDOM_IN_TEN:
        return without_thinking(k, moves, rng)
    weights = card_weights(k.rules, k.piles, k.team)
    captures = [m for m in moves if m.capture]
    if captures:
        best = max(captures, key=lambda m: (capture_gain(k, m, weights), len(m.capture)))
        return best, capture_reason(k, best)
    card = min(k.hand, key=lambda c: discard_order_key(c, weights))
    return Move(card), "discards its least useful card"
