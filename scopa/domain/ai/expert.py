"""Expert: alpha-beta over sampled worlds, racing the candidate moves.

Worlds are dealt one at a time from the cards the seat has not seen (``search.world``)
and every move still in the race is searched in each (``search.Searcher``). After a few
worlds a move whose shortfall behind the leader is clear (the mean of its paired
differences more than ``RACE_Z`` standard errors below zero) leaves the race, so no time
goes on moves that cannot win; the decision ends when one move is left, when the moves
left have not differed in any world (they are equivalent), or after ``WORLDS`` worlds.
A single legal move is played at once. With two players and the stock gone the unseen
cards are the rival's hand: one world is the truth and its search is exact.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scopa.domain.ai.evaluate import card_weights
from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.ai.match_odds import match_odds
from scopa.domain.ai.medium import capture_reason
from scopa.domain.ai.search import Searcher, plays_left, world
from scopa.domain.cards import SETTEBELLO
from scopa.domain.deal import Deal
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

# Screened against expert-v1 (docs/ai.md): 96 worlds with a stricter race (2.5 standard
# errors) beat 32 with 2.0, and cost little more at the median since the race ends most
# decisions early. With 4 players 6 plays deep beat 5 by 5 points over 1,500 matches on
# the same seeds, its p99 still under 100 ms; 7 and more broke that p99.
WORLDS = 96
MIN_WORLDS = 3
RACE_Z = 2.5
DEPTH = {2: 6, 4: 6}
# Against pimc (docs/ai.md), 7 plays deep and 4 worlds before the race spent as much CPU
# as pimc at the median; 6 and 3 won 65.8% of 1,000 matches at about half. Alpha-beta
# searches about 120 positions a millisecond, so past this many positions no more worlds
# are dealt: the p99 stays near 50 ms without a clock, the same arguments still giving
# the same move.
NODE_BUDGET = 5000
# Scopone's ten-card hands make a world dearer the more cards are left: at the deal's start
# one world searched 4 plays deep costs about 15 ms, 5 deep 70, 6 deep some 300 (docs/ai.md).
# So the depth grows as the hands shrink, (plays left above, depth) in order, and fewer
# worlds bound an unclocked decision near what the server's 100 ms buys.
SCOPONE_DEPTH = ((28, 4), (16, 5), (0, 6))
SCOPONE_WORLDS = 24


def depth_for(k: Knowledge) -> int:
    """How many plays ahead the expert searches each world from ``k``."""
    if k.rules.deal == "scopone":
        left = plays_left(k)
        return next(depth for above, depth in SCOPONE_DEPTH if left > above)
    return DEPTH[k.players]


def evaluate(
    k: Knowledge,
    moves: list[Move],
    rng: SplitMix64,
    worlds: int = WORLDS,
    *,
    match: bool = True,
    race: bool = True,
    depth: int | None = None,
    race_z: float = RACE_Z,
    time_left: Callable[[], float] | None = None,
    trace: list[tuple[Deal, dict[int, float]]] | None = None,
) -> tuple[list[float | None], int]:
    """Each move's mean value over the worlds (None once it left the race), and how many
    worlds were searched. ``match`` adds the swing in the chance of winning the match;
    without it a value is in deal points, the seat's team minus the other. ``depth`` is how
    many plays each world is searched ahead (by default the expert's); ``race_z`` how many
    standard errors behind the leader put a move out of the race. ``trace`` receives each
    world and the values found in it, by move index, for the hint to explain the choice."""
    odds = match_odds(k.rules, k.scores, k.team) if match else None
    weights = card_weights(k.rules, k.piles, k.team)
    searcher = Searcher(k, weights, depth or depth_for(k), odds)
    unseen = k.unseen
    if k.players == 2 and k.deck_count == 0:
        worlds = 1
    n = len(moves)
    values: list[list[float]] = [[] for _ in moves]
    active = list(range(n))
    started = time_left() if time_left is not None else 0.0
    done = 0
    while done < worlds and len(active) > 1:
        if time_left is not None and done >= MIN_WORLDS:
            left = time_left()
            if left < (started - left) / done:
                break
        deal = world(k, unseen, rng)
        found = searcher.values(deal, [moves[i] for i in active])
        for i, v in zip(active, found, strict=True):
            values[i].append(v)
        if trace is not None:
            trace.append((deal, dict(zip(active, found, strict=True))))
        done += 1
        if race and done >= MIN_WORLDS:
            active = _still_racing(values, active, race_z)
            # Scopone bounds its decisions by its own depths and worlds, measured uncapped.
            if searcher.nodes > NODE_BUDGET and k.rules.deal != "scopone":
                break
    if len(active) == 1 and done == 0:
        return [0.0 if i in active else None for i in range(n)], 0
    means: list[float | None] = [None] * n
    for i in active:
        means[i] = sum(values[i]) / len(values[i])
    return means, done


def _still_racing(values: list[list[float]], active: list[int], race_z: float) -> list[int]:
    """The moves still in the race: all but those whose shortfall behind the leader is over
    ``race_z`` standard errors, or only the leader when no move's values differ from its
    (equivalent moves: any of them will do)."""
    n = len(values[active[0]])
    leader = max(active, key=lambda i: sum(values[i]))
    lead = values[leader]
    if all(values[i] == lead for i in active):
        return [leader]
    kept = [leader]
    for i in active:
        if i == leader:
            continue
        diffs = [a - b for a, b in zip(lead, values[i], strict=True)]
        mean = sum(diffs) / n
        spread = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean <= race_z * math.sqrt(spread / n):
            kept.append(i)
    return sorted(kept)


def search(
    k: Knowledge,
    moves: list[Move],
    rng: SplitMix64,
    worlds: int,
    depth: int | None = None,
    time_left: Callable[[], float] | None = None,
    race_z: float = RACE_Z,
) -> tuple[Move, int]:
    """The move of ``moves`` the race leaves ahead, and how many worlds it took."""
    means, done = evaluate(k, moves, rng, worlds, depth=depth, race_z=race_z, time_left=time_left)
    ahead = max((m, -i) for i, m in enumerate(means) if m is not None)
    return moves[-ahead[1]], done


def choose(
    k: Knowledge,
    rng: SplitMix64,
    samples: int | None = None,
    time_left: Callable[[], float] | None = None,
) -> tuple[Move, str]:
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    worlds = samples or (SCOPONE_WORLDS if k.rules.deal == "scopone" else WORLDS)
    trace: list[tuple[Deal, dict[int, float]]] = []
    means, done = evaluate(k, moves, rng, worlds, time_left=time_left, trace=trace)
    best = max((m, -i) for i, m in enumerate(means) if m is not None)
    move = moves[-best[1]]
    what = explain(k, moves, -best[1], trace)
    if k.players == 2 and k.deck_count == 0:
        return move, f"{what}: the rest of the deal worked out exactly"
    return move, f"{what}: best of {len(moves)} moves over {done} sampled deals"


def explain(
    k: Knowledge, moves: list[Move], chosen: int, trace: list[tuple[Deal, dict[int, float]]]
) -> str:
    """Why ``moves[chosen]`` beat the runner-up (the move that met the most worlds, then
    the best of those), from what follows each in the worlds both met: how often the next
    rival could sweep, or take the settebello, after it."""
    move = moves[chosen]
    plain = capture_reason(k, move) if move.capture else "lays a card"
    if move.capture and (k.is_sweep(move) or SETTEBELLO in (move.card, *move.capture)):
        return plain  # what it takes is the reason
    met: dict[int, list[float]] = {}
    for _, found in trace:
        for i, v in found.items():
            if i != chosen:
                met.setdefault(i, []).append(v)
    if not met:
        return plain
    runner = max(met, key=lambda i: (len(met[i]), sum(met[i]) / len(met[i])))
    shared = [deal for deal, found in trace if runner in found]
    mine = _rival_replies(shared, move)
    theirs = _rival_replies(shared, moves[runner])
    n = len(shared)
    # A difference in a quarter of the worlds or more is the search's reason, not noise.
    enough = max(1, n // 4)
    if theirs[0] - mine[0] >= enough:
        return (
            f"denies a sweep (the next best move lets the rival sweep in {theirs[0]} of {n} deals)"
        )
    if theirs[1] - mine[1] >= enough:
        return (
            "keeps the settebello race (the next best move lets the rival take it in "
            f"{theirs[1]} of {n} deals)"
        )
    return plain


def _rival_replies(worlds: list[Deal], move: Move) -> tuple[int, int]:
    """In how many of ``worlds`` the next player, a rival, could sweep after ``move``, and
    in how many take the settebello."""
    sweeps = settebello = 0
    for deal in worlds:
        child = deal.clone()
        child.play(move)
        if child.is_over():
            continue
        replies = [m for m in child.legal_moves() if m.capture]
        sweeps += any(child.is_sweep(m) for m in replies)
        settebello += any(SETTEBELLO in m.capture for m in replies)
    return sweeps, settebello
