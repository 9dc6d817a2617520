"""A fast, fairly strong policy to play a deal out on the ``Deal`` engine, for the
expert's sampled worlds.

In a sampled world every hand is known, so the policy may look at the next player's
hand: it takes what the card weights value most, and it will not leave a table the next
player can sweep unless that is the lesser evil. Both sides play it, so neither is
favoured.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.ai.evaluate import SWEEP
from domain.cards import (
    VALUE,
)
from domain.deal import Deal

# A sweep left to the next player costs nearly a point; a bit less, as it may not see it.
SWEEP_RISK = 0.9


def _sweepable(deal: Deal, values: list[int], total: int, rival: list[int]) -> bool:
    """Can the player holding ``rival`` take the whole of a table with these values?"""
    if not values:
        return False
    if deal.fifteen:
        need = 15 - total
        return 0 < need <= 10 and any(VALUE[c] == need for c in rival)
    if deal.ace_mode:
        # A lone ace on the table can still fall to an ace, but only scores under ``sweep``.
        lone = 1 not in values or total == 1
        if deal.ace_mode == 1 and lone and any(VALUE[c] == 1 for c in rival):
            return True
        return 1 < total <= 10 and any(VALUE[c] == total for c in rival)
    return total <= 10 and any(VALUE[c] == total for c in rival)


def policy_move(deal: Deal, weights: Sequence[float]) -> tuple[int, tuple[int, ...]]:
    seat = deal.turn
    hand = deal.hands[seat]
    table = deal.table
    values = deal.values
    total = sum(values)
    rival = deal.hands[(seat + 1) % deal.players]
    best_score = -1e9
    best: tuple[int, tuple[int, ...]] = (hand[0], ())
    for card in hand:
        options = deal.options(card)
        if not options:
            score = -weights[card]
            after = [*values, VALUE[card]]
            if _sweepable(deal, after, total + VALUE[card], rival):
                score -= SWEEP_RISK
            if score > best_score:
                best_score = score
                best = (card, ())
            continue
        for where in options:
            score = weights[card]
            taken = 0
            for i in where:
                score += weights[table[i]]
                taken += values[i]
            if len(where) == len(values):
                if deal.is_sweep(card, where):
                    score += SWEEP
            elif rival:
                rest = [v for i, v in enumerate(values) if i not in where]
                if _sweepable(deal, rest, total - taken, rival):
                    score -= SWEEP_RISK
            if score > best_score:
                best_score = score
                best = (card, where)
    return best


def play_out(deal: Deal, weights: Sequence[float]) -> None:
    """Play ``deal`` to its end with the policy and hand out the leftovers."""
    while not deal.is_over():
        card, where = policy_move(deal, weights)
        deal.play(card, where)
    deal.take_leftovers()
