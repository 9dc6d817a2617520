"""A fast, fairly strong policy to play a deal out on the ``Deal`` engine, for
``expert-v1``'s sampled worlds.

In a sampled world every hand is known, so the policy may look at the next player's
hand: it takes what the card weights value most, and it will not leave a table the next
player can sweep unless that is the lesser evil. Both sides play it, so neither is
favoured. Whether a table can be swept is read off the capture tables
(``TableOptions.clears``) and the sweep rule (``CaptureRules.sweeping``), the rules the
deal itself plays by.
"""

from __future__ import annotations

from collections.abc import Sequence

from scopa.domain.ai.evaluate import SWEEP
from scopa.domain.captures import WEIGHT, Positions, capture_positions
from scopa.domain.cards import VALUE
from scopa.domain.deal import Deal
from scopa.domain.moves import Move

# A sweep left to the next player costs nearly a point; a bit less, as it may not see it.
SWEEP_RISK = 0.9


def policy_move(deal: Deal, weights: Sequence[float]) -> Move:
    seat = deal.turn
    hand = deal.hands[seat]
    table = deal.table
    values = deal.values
    key = deal.key
    on_table = len(values)
    captures = deal.captures
    tables = captures.tables
    takes, moves, _ = tables[key]
    last_play = deal.is_last_play()
    # The values the next player holds that would score a sweep on a table they clear.
    rival = 0
    for c in deal.hands[(seat + 1) % deal.players]:
        rival |= 1 << VALUE[c]
    rival &= captures.sweeping
    best_score = -1e9
    best: tuple[int, Positions] = (hand[0], ())
    for card in hand:
        v = VALUE[card]
        if not takes[v]:
            score = -weights[card]
            if tables[key + WEIGHT[v]].clears & rival:
                score -= SWEEP_RISK
            if score > best_score:
                best_score = score
                best = (card, ())
            continue
        for where in capture_positions(values, takes[v], moves[v]):
            score = weights[card]
            rest = key
            for i in where:
                score += weights[table[i]]
                rest -= WEIGHT[values[i]]
            if len(where) == on_table:
                if captures.is_sweep(v, on_table, on_table, last_play):
                    score += SWEEP
            elif tables[rest].clears & rival:
                score -= SWEEP_RISK
            if score > best_score:
                best_score = score
                best = (card, where)
    card, where = best
    return Move(card, tuple(sorted([table[i] for i in where])))


def play_out(deal: Deal, weights: Sequence[float]) -> None:
    """Play ``deal`` to its end with the policy and hand out the leftovers."""
    while not deal.is_over():
        deal.play(policy_move(deal, weights))
    deal.take_leftovers()
