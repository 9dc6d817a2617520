"""Medium: weighs every capture; when it cannot capture, drops its least useful card."""

from __future__ import annotations

from collections.abc import Sequence

from domain.ai.evaluate import SWEEP, card_weights, discard_order_key
from domain.ai.knowledge import Candidate, Knowledge, candidates
from domain.cards import KING_OF_DIAMONDS, SETTEBELLO, VALUE


def capture_gain(move: Candidate, weights: Sequence[float]) -> float:
    """What a capture brings: the cards taken, the card that took them, a sweep."""
    if not move.capture:
        return 0.0
    gain = weights[move.card] + sum(weights[c] for c in move.capture)
    return gain + SWEEP if move.sweep else gain


def capture_reason(move: Candidate, king_scores: bool) -> str:
    cards = (move.card, *move.capture)
    if move.sweep:
        return "sweeps the table"
    if SETTEBELLO in cards:
        return "takes the settebello"
    if king_scores and KING_OF_DIAMONDS in cards:
        return "takes the king of diamonds"
    sevens = sum(VALUE[c] == 7 for c in move.capture)
    if sevens:
        return "takes a seven" if sevens == 1 else f"takes {sevens} sevens"
    return f"takes {len(cards)} cards"


def choose(k: Knowledge) -> tuple[Candidate, str]:
    moves = candidates(k)
    weights = card_weights(k.rules, k.piles, k.team)
    captures = [m for m in moves if m.capture]
    if captures:
        best = max(captures, key=lambda m: (capture_gain(m, weights), len(m.capture)))
        return best, capture_reason(best, k.rules.king_of_diamonds)
    card = min(k.hand, key=lambda c: discard_order_key(c, weights))
    return Candidate(card, (), False), "discards its least useful card"
