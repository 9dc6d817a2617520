"""Pimc: the strongest public kind of Scopa AI, kept as a sparring partner.

Perfect-information Monte Carlo as the public engines play it: ``WORLDS`` deals of the
cards the seat has not seen, each searched as if every card were visible with negamax
alpha-beta ``DEPTH`` plays deep, a leaf valued by the deal's points so far (sweeps and
the majorities as the piles stand, the seat's team minus the other), each world weighing
the same and no view of the match score. The expert is measured against it; it is never
offered to players.
"""

from __future__ import annotations

from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.ai.search import world
from scopa.domain.deal import Deal, team_of
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules
from scopa.domain.scoring import deal_points

WORLDS = 12
DEPTH = 5
INF = 1_000


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    rules = k.rules
    totals = [0] * len(moves)
    unseen = k.unseen
    for _ in range(WORLDS):
        deal = world(k, unseen, rng)
        for i, move in enumerate(moves):
            child = deal.clone()
            child.play(move)
            # Turns alternate between the teams, so the child's mover is the other side.
            totals[i] -= _negamax(rules, child, DEPTH - 1, -INF, INF)
    best = max(range(len(moves)), key=lambda i: (totals[i], -i))
    return moves[best], f"best of {len(moves)} moves over {WORLDS} sampled deals"


def _negamax(rules: Rules, deal: Deal, depth: int, alpha: int, beta: int) -> int:
    """The deal's value for the side to move after ``depth`` more plays, both sides at
    their best: its points of the deal so far minus the other side's."""
    mover = team_of(deal.turn, deal.players)
    if deal.is_over():
        deal.take_leftovers()
        return _points(rules, deal, mover)
    if depth == 0:
        return _points(rules, deal, mover)
    best = -INF
    for move in deal.legal_moves():
        child = deal.clone()
        child.play(move)
        value = -_negamax(rules, child, depth - 1, -beta, -alpha)
        if value > best:
            best = value
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break
    return best


def _points(rules: Rules, deal: Deal, team: int) -> int:
    points = deal_points(rules, deal.piles, deal.sweeps)
    return points[team] - points[1 - team]
