"""The expert as it was before 0.4.0, frozen as the tournament opponent ``expert-v1``
(``tests/ai/test_ai_frozen.py`` pins its decisions): determinized Monte Carlo over the
cards this seat has not seen.

Each sample deals the unseen cards at random into a world consistent with what the seat
knows (every other hand gets its known count, the rest is the stock), then plays the deal
out once after each candidate move with the fast playout policy. Every candidate meets the
same worlds (common random numbers), so the comparison between moves is far less noisy
than their separate averages. The move with the best mean utility wins: the deal's point
difference for the seat's team, plus the swing in the chance of winning the match.
"""

from __future__ import annotations

from collections.abc import Callable

from scopa.domain.ai.evaluate import card_weights
from scopa.domain.ai.frozen.playout import play_out
from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.ai.match_odds import match_odds
from scopa.domain.ai.medium import capture_reason
from scopa.domain.deal import Deal
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules
from scopa.domain.scoring import deal_points

MAX_SAMPLES = 600
MIN_SAMPLES = 8
# Without a clock, samples are sized by work: candidate moves x plays left x samples.
# This many simulated plays take about 40 ms on one core of the reference machine.
DEFAULT_WORK = 12000
# How many deal points winning the match outright is worth against playing on.
MATCH_WEIGHT = 8.0


# Few enough cards left in two hands to search every line of play to the deal's end.
EXACT_CARDS = 6
# Dealing a world costs about as much as this many simulated plays.
WORLD_COST = 12


def sample_count(k: Knowledge, moves: int) -> int:
    plays_left = k.deck_count + sum(k.hand_counts)
    per_sample = moves * plays_left + WORLD_COST
    return max(MIN_SAMPLES, min(MAX_SAMPLES, DEFAULT_WORK // per_sample))


def _utility(rules: Rules, deal: Deal, team: int, odds: Callable[[int, int], float]) -> float:
    points = deal_points(rules, deal.piles, deal.sweeps)
    mine, theirs = points[team], points[1 - team]
    return mine - theirs + MATCH_WEIGHT * odds(mine, theirs)


def _exact(
    rules: Rules,
    deal: Deal,
    team: int,
    odds: Callable[[int, int], float],
    alpha: float,
    beta: float,
) -> float:
    """Minimax with alpha-beta to the deal's end: the value for ``team`` with best play."""
    if deal.is_over():
        deal.take_leftovers()
        return _utility(rules, deal, team, odds)
    mine = deal.turn % 2 == team
    best = -1e9 if mine else 1e9
    for move in deal.legal_moves():
        child = deal.clone()
        child.play(move)
        value = _exact(rules, child, team, odds, alpha, beta)
        if mine:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


def _world(k: Knowledge, unseen: list[int], rng: SplitMix64) -> Deal:
    cards = unseen[:]
    rng.shuffle(cards)
    hands: list[list[int]] = []
    at = 0
    for seat, count in enumerate(k.hand_counts):
        if seat == k.seat:
            hands.append(list(k.hand))
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


def choose(
    k: Knowledge,
    rng: SplitMix64,
    samples: int | None = None,
    time_left: Callable[[], float] | None = None,
) -> tuple[Move, str]:
    """The best move over sampled worlds.

    ``time_left`` (seconds) stops the sampling once another sample would not fit, judged
    by the mean time of those done so far.
    """
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    unseen = list(k.unseen)
    team = k.team
    odds = match_odds(k.rules, k.scores, team)
    if k.players == 2 and k.deck_count == 0 and sum(k.hand_counts) <= EXACT_CARDS:
        # The stock is gone: the unseen cards are the rival's hand, so the deal is solved.
        world = _world(k, unseen, rng)
        values = []
        for move in moves:
            deal = world.clone()
            deal.play(move)
            values.append(_exact(k.rules, deal, team, odds, -1e9, 1e9))
        move = moves[max(range(len(moves)), key=lambda i: values[i])]
        return move, f"{_describe(move, k)}: the rest of the deal worked out exactly"
    limit = samples if samples is not None else sample_count(k, len(moves))
    if time_left is not None and samples is None:
        limit = MAX_SAMPLES
    started = time_left() if time_left is not None else 0.0
    weights = card_weights(k.rules, k.piles, k.team)
    totals = [0.0] * len(moves)
    done = 0
    while done < limit:
        if time_left is not None and done >= MIN_SAMPLES:
            left = time_left()
            if left < (started - left) / done:
                break
        world = _world(k, unseen, rng)
        for i, move in enumerate(moves):
            deal = world.clone()
            deal.play(move)
            play_out(deal, weights)
            totals[i] += _utility(k.rules, deal, team, odds)
        done += 1
    best = max(range(len(moves)), key=lambda i: totals[i])
    move = moves[best]
    return move, f"{_describe(move, k)}: best of {len(moves)} moves over {done} sampled deals"


def _describe(move: Move, k: Knowledge) -> str:
    return capture_reason(k, move) if move.capture else "lays a card"
