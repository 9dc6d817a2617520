"""How much each card is worth to a team, in expected deal points, as a deal stands.

The numbers are rough shares of the points a card helps win: the settebello (and the king
of diamonds when it scores) is a whole point; a card is a share of the 21-card race, a
diamond of the 6-diamond race, a seven, six or ace of the primiera. A race already decided
is worth nothing more, and a card that can no longer change either side's best primiera
card in its suit adds nothing to the primiera.
"""

from __future__ import annotations

from collections.abc import Sequence

from scopa.domain.cards import (
    DECK,
    DIAMOND_RUN,
    IS_DIAMOND,
    KING_OF_DIAMONDS,
    PRIMIERA,
    SETTEBELLO,
    SUIT,
    VALUE,
)
from scopa.domain.rules import Rules
from scopa.domain.scoring import CARDS_TO_WIN, DIAMONDS_TO_WIN, best_by_suit

SWEEP = 1.0
CARD = 0.07
DIAMOND = 0.12
# Primiera share by primiera value: sevens decide it, sixes often, aces sometimes.
PRIMIERA_SHARE: dict[int, float] = {
    21: 0.25,
    18: 0.14,
    16: 0.08,
    15: 0.04,
    14: 0.02,
    13: 0.015,
    12: 0.01,
    10: 0.0,
}
RUN_HEAD = 1.0  # each of AD 2D 3D under the diamond sequence: together they are 3 points
RUN_TAIL = 0.4


def card_weights(rules: Rules, piles: Sequence[Sequence[int]], team: int) -> list[float]:
    """The worth of taking each card (for ``team``, or denying it to the other side)."""
    mine, theirs = piles[team], piles[1 - team]
    card_w = 0.0 if len(mine) >= CARDS_TO_WIN or len(theirs) >= CARDS_TO_WIN else CARD
    d_mine = sum(IS_DIAMOND[c] for c in mine)
    d_theirs = sum(IS_DIAMOND[c] for c in theirs)
    diamond_w = 0.0 if d_mine >= DIAMONDS_TO_WIN or d_theirs >= DIAMONDS_TO_WIN else DIAMOND
    best_mine = best_by_suit(mine)
    best_theirs = best_by_suit(theirs)
    weights = []
    for c in DECK:
        p = PRIMIERA[c]
        s = SUIT[c]
        w = card_w
        if IS_DIAMOND[c]:
            w += diamond_w
        if p > best_mine[s] or p > best_theirs[s]:
            w += PRIMIERA_SHARE[p]
        weights.append(w)
    weights[SETTEBELLO] += 1.0
    if rules.king_of_diamonds:
        weights[KING_OF_DIAMONDS] += 1.0
    if rules.diamond_sequence:
        head = DIAMOND_RUN[:3]
        split = any(c in mine for c in head) and any(c in theirs for c in head)
        if not split:
            for c in head:
                weights[c] += RUN_HEAD
            for c in DIAMOND_RUN[3:]:
                weights[c] += RUN_TAIL
    return weights


def discard_order_key(card: int, weights: Sequence[float]) -> tuple[float, int]:
    """Least useful first: the cheapest to lose, and among equals the highest value, since
    a high card is the hardest to gather into a group."""
    return (weights[card], -VALUE[card])
