"""Determinized alpha-beta: the search the expert and the coach share.

A world deals the cards a seat has not seen into the other hands and the stock, as far as
that seat knows them. In a world every card is known, so the deal can be searched like a
game of perfect information: alpha-beta a few plays deep on the ``Deal`` engine, each
leaf valued by what the two sides have taken since the root (the card weights of
``evaluate``, a sweep a whole point) and by the sweep the side to move could make there.
Once the plays left fit in the search, the deal is searched to its end and valued by
its real points, plus the swing in the chance of winning the match. A move's value is its
mean over the worlds, every move meeting the same worlds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scopa.domain.ai.evaluate import SWEEP
from scopa.domain.ai.knowledge import Knowledge
from scopa.domain.cards import VALUE
from scopa.domain.deal import Deal, team_of
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.scoring import deal_points

Odds = Callable[[int, int], float]
# A sweep the side to move holds at a leaf counts most of a point: it may not be the
# best use of the card, and the search stopped before the reply.
SWEEP_THREAT = 0.7
INF = 1e9
# How many deal points winning the match outright is worth against playing on.
MATCH_WEIGHT = 8.0


def world(k: Knowledge, unseen: Sequence[int], rng: SplitMix64) -> Deal:
    """One deal consistent with ``k``: the unseen cards shuffled into the hidden hands (each
    its known count) and the stock; a hand everyone sees stays as it is."""
    cards = list(unseen)
    rng.shuffle(cards)
    hands: list[list[int]] = []
    at = 0
    for seat, count in enumerate(k.hand_counts):
        shown = k.shown[seat] if k.shown else None
        if seat == k.seat:
            hands.append(list(k.hand))
        elif shown is not None:
            hands.append(list(shown))
        else:
            hands.append(cards[at : at + count])
            at += count
    return Deal(
        k.rules,
        k.players,
        k.dealer,
        k.seat,
        hands,
        list(k.table),
        cards[at:],
        [list(p) for p in k.piles],
        list(k.sweeps),
        k.last_capturer,
    )


def plays_left(k: Knowledge) -> int:
    return k.deck_count + sum(k.hand_counts)


class Searcher:
    """The fixed parts of one decision's search: whose side, the weights, the depth."""

    __slots__ = ("k", "team", "weights", "depth", "exact", "odds", "base", "sweeps0", "nodes")

    def __init__(
        self, k: Knowledge, weights: Sequence[float], depth: int, odds: Odds | None
    ) -> None:
        self.k = k
        self.team = k.team
        self.weights = weights
        # Deep enough to reach the deal's end: search it exactly.
        self.exact = plays_left(k) <= depth
        self.depth = plays_left(k) if self.exact else depth
        self.odds = odds
        self.base = [len(p) for p in k.piles]
        self.sweeps0 = list(k.sweeps)
        # Positions searched so far: the expert's measure of the work a decision took.
        self.nodes = 0

    def values(self, deal: Deal, moves: Sequence[Move]) -> list[float]:
        """Each move's value in this world, for the seat's team."""
        out = []
        for move in moves:
            child = deal.clone()
            child.play(move)
            out.append(self._search(child, self.depth - 1, -INF, INF))
        return out

    def _terminal(self, deal: Deal) -> float:
        deal.take_leftovers()
        points = deal_points(self.k.rules, deal.piles, deal.sweeps)
        team = self.team
        mine, theirs = points[team], points[1 - team]
        value = float(mine - theirs)
        if self.odds is not None:
            value += MATCH_WEIGHT * self.odds(mine, theirs)
        return value

    def _leaf(self, deal: Deal) -> float:
        w = self.weights
        team = self.team
        other = 1 - team
        value = 0.0
        mine = deal.piles[team]
        theirs = deal.piles[other]
        for i in range(self.base[team], len(mine)):
            value += w[mine[i]]
        for i in range(self.base[other], len(theirs)):
            value -= w[theirs[i]]
        value += SWEEP * (
            deal.sweeps[team] - self.sweeps0[team] - deal.sweeps[other] + self.sweeps0[other]
        )
        if deal.values:
            held = 0
            for c in deal.hands[deal.turn]:
                held |= 1 << VALUE[c]
            captures = deal.captures
            if held & captures.sweeping & captures.tables[deal.key].clears:
                mover = team_of(deal.turn, deal.players)
                value += SWEEP_THREAT if mover == team else -SWEEP_THREAT
        return value

    def _search(self, deal: Deal, depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if deal.is_over():
            return self._terminal(deal)
        if depth == 0:
            return self._leaf(deal)
        moves = deal.legal_moves()
        if len(moves) > 1:
            # Captures first, the biggest first: they cut the most.
            moves.sort(key=lambda m: -len(m.capture))
        mine = team_of(deal.turn, deal.players) == self.team
        best = -INF if mine else INF
        for move in moves:
            child = deal.clone()
            child.play(move)
            value = self._search(child, depth - 1, alpha, beta)
            if mine:
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
            elif value < best:
                best = value
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        return best
