"""The chance of winning the match from a score, so the expert values points near the
target for what they decide, not only for their number.

A deal is modelled as independent point sources: the cards, diamonds, primiera and
settebello (and the king of diamonds when it scores) each go to one side or to nobody,
with the rates seen in play between strong levels; sweeps per side are Poisson with a
mean that depends on the capture rules. From that, ``P(win | points still needed by each
side)`` follows by dynamic programming over the deals to come.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from math import exp, factorial

from scopa.domain.rules import Rules

# Each source: the chance one given side takes it (the same for both sides).
_SOURCES = (0.45, 0.40, 0.47, 0.5)  # cards, diamonds, primiera, settebello
_SWEEP_MEAN = {"match": 0.4, "fifteen": 0.9}
_ACE_SWEEP_MEAN = 2.0
_MAX_SWEEPS = 6

Table = dict[tuple[int, int], float]


def _deal_outcomes(sources: tuple[float, ...], sweep_mean: float) -> Table:
    dist: Table = {(0, 0): 1.0}
    for q in sources:
        nxt: Table = {}
        for (x, y), p in dist.items():
            for dx, dy, pq in ((1, 0, q), (0, 1, q), (0, 0, 1 - 2 * q)):
                key = (x + dx, y + dy)
                nxt[key] = nxt.get(key, 0.0) + p * pq
        dist = nxt
    poisson = [exp(-sweep_mean) * sweep_mean**n / factorial(n) for n in range(_MAX_SWEEPS)]
    poisson.append(1.0 - sum(poisson))
    out: Table = {}
    for (x, y), p in dist.items():
        for sx, px in enumerate(poisson):
            for sy, py in enumerate(poisson):
                key = (x + sx, y + sy)
                out[key] = out.get(key, 0.0) + p * px * py
    return out


@cache
def _win_table(target: int, sources: tuple[float, ...], sweep_mean: float) -> Table:
    """``P(win)`` for every pair of points still needed, 1..target each."""
    outcomes = _deal_outcomes(sources, sweep_mean)
    stay = outcomes.pop((0, 0), 0.0)
    table: Table = {}

    def settled(a: int, b: int) -> float:
        if a > 0 and b > 0:
            return table[(a, b)]
        return 1.0 if a < b else 0.0 if a > b else 0.5

    for total in range(2, 2 * target + 1):
        for a in range(max(1, total - target), min(target, total - 1) + 1):
            b = total - a
            p = sum(q * settled(a - x, b - y) for (x, y), q in outcomes.items())
            table[(a, b)] = p / (1.0 - stay)
    return table


def match_odds(rules: Rules, scores: Sequence[int], team: int) -> Callable[[int, int], float]:
    """``odds(mine, theirs)``: the chance ``team`` wins the match after a deal in which it
    scores ``mine`` and the other side ``theirs``."""
    sources = _SOURCES + ((0.5,) if rules.king_of_diamonds else ())
    aces = rules.ace_sweeps != "off"
    sweep_mean = _ACE_SWEEP_MEAN if aces else _SWEEP_MEAN[rules.capture]
    target = rules.target
    need_mine = target - scores[team]
    need_theirs = target - scores[1 - team]
    table = _win_table(target, sources, sweep_mean)

    def odds(mine: int, theirs: int) -> float:
        a = need_mine - mine
        b = need_theirs - theirs
        if a > 0 and b > 0:
            return table[(a, b)]
        return 1.0 if a < b else 0.0 if a > b else 0.5

    return odds
