"""Glicko-2 ratings: a player's rating, how sure it is (the deviation) and how erratic the
player is (the volatility), after the results of one rating period.

Mark E. Glickman's system as his "Example of the Glicko-2 system" (2012) states it, step
for step, on the Glicko-1 scale that players read (a new player at 1500, deviation 350).
A rated match is a rating period of its own, so a rating moves as soon as the match ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Between the Glicko-1 scale and Glicko-2's own.
SCALE = 173.7178
CENTRE = 1500.0
# How far the volatility may move in one period; the paper suggests 0.3 to 1.2.
TAU = 0.5
# The volatility iteration stops when its bracket is this narrow.
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    rating: float = CENTRE
    deviation: float = 350.0
    volatility: float = 0.06


@dataclass(frozen=True)
class Result:
    """One game of the period against ``opponent``: ``score`` 1 a win, 0.5 a draw, 0 a
    loss."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def rate(player: Rating, results: Sequence[Result], tau: float = TAU) -> Rating:
    """The player's rating after the period's ``results``; with none, only the deviation
    grows, as time without games makes a rating less certain."""
    mu = (player.rating - CENTRE) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    inverse_v = 0.0
    improvement = 0.0
    for result in results:
        g = _g(result.opponent.deviation / SCALE)
        expected = 1.0 / (1.0 + math.exp(-g * (mu - (result.opponent.rating - CENTRE) / SCALE)))
        inverse_v += g * g * expected * (1.0 - expected)
        improvement += g * (result.score - expected)
    v = 1.0 / inverse_v
    delta = v * improvement
    sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu += phi * phi * improvement
    return Rating(SCALE * mu + CENTRE, SCALE * phi, sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of the paper's f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)
