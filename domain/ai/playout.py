"""A fast, fairly strong policy to play a deal out on the ``Deal`` engine, and the deal's
points, for the expert's sampled worlds.

In a sampled world every hand is known, so the policy may look at the next player's
hand: it takes what the card weights value most, and it will not leave a table the next
player can sweep unless that is the lesser evil. Both sides play it, so neither is
favoured.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.ai.evaluate import SWEEP
from domain.cards import (
    DIAMOND_RUN,
    IS_DIAMOND,
    KING_OF_DIAMONDS,
    PRIMIERA,
    SETTEBELLO,
    SUIT,
    VALUE,
)
from domain.deal import Deal
from domain.rules import Rules

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


def deal_points(rules: Rules, piles: Sequence[Sequence[int]], sweeps: Sequence[int]) -> list[int]:
    """Each team's points for a finished deal, as ``domain.scoring.score_deal`` counts."""
    points = list(sweeps)
    cards = (len(piles[0]), len(piles[1]))
    diamonds = [0, 0]
    prim: list[int | None] = [None, None]
    for t in (0, 1):
        best = [0, 0, 0, 0]
        d = 0
        for c in piles[t]:
            d += IS_DIAMOND[c]
            p = PRIMIERA[c]
            if p > best[SUIT[c]]:
                best[SUIT[c]] = p
        diamonds[t] = d
        prim[t] = None if 0 in best else sum(best)
    for t in (0, 1):
        o = 1 - t
        if cards[t] >= 21 and cards[t] > cards[o]:
            points[t] += 1
        if diamonds[t] >= 6 and diamonds[t] > diamonds[o]:
            points[t] += 1
        mine, theirs = prim[t], prim[o]
        if mine is not None and (theirs is None or mine > theirs):
            points[t] += 1
        pile = piles[t]
        if SETTEBELLO in pile:
            points[t] += 1
        if rules.king_of_diamonds and KING_OF_DIAMONDS in pile:
            points[t] += 1
        if rules.diamond_sequence:
            held = set(pile)
            run = 0
            for c in DIAMOND_RUN:
                if c not in held:
                    break
                run += 1
            if run >= 3:
                points[t] += run
    return points
