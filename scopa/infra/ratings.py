"""Elo-scale ratings of AI levels from the matches they played, with 95% intervals.

A Bradley-Terry model: level i beats level j with probability ``1 / (1 + 10**((r_j -
r_i) / 400))``. The ratings maximise the likelihood of every pairing's wins (Newton's
method), the first level anchored at 0. Each pairing also counts one virtual drawn match
(half a win each way), so a level that won or lost everything still gets a finite rating.
An interval is the rating's standard error (from the inverse of the information matrix)
times 1.96, against the anchor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SCALE = 400.0 / math.log(10.0)
Z95 = 1.959963984540054
PRIOR = 0.5


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gauss-Jordan elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(
    levels: Sequence[str], results: Sequence[tuple[str, str, int, int]]
) -> dict[str, tuple[float, float, float]]:
    """Each level's rating and 95% interval, from ``(a, b, wins of a, wins of b)``."""
    index = {lv: i for i, lv in enumerate(levels)}
    n = len(levels)
    wins = [[0.0] * n for _ in range(n)]
    for a, b, wa, wb in results:
        i, j = index[a], index[b]
        wins[i][j] += wa + PRIOR
        wins[j][i] += wb + PRIOR
    theta = [0.0] * n
    info: list[list[float]] = []
    for _ in range(100):
        grad = [0.0] * n
        info = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                games = wins[i][j] + wins[j][i]
                if not games:
                    continue
                p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
                grad[i] += wins[i][j] - games * p
                grad[j] -= wins[i][j] - games * p
                h = games * p * (1.0 - p)
                info[i][i] += h
                info[j][j] += h
                info[i][j] -= h
                info[j][i] -= h
        # The anchor (level 0) stays at 0: solve for the others.
        step = _solve([row[1:] for row in info[1:]], grad[1:])
        for i, s in enumerate(step, 1):
            theta[i] += s
        if max(map(abs, step), default=0.0) < 1e-10:
            break
    reduced = [row[1:] for row in info[1:]]
    out = {levels[0]: (0.0, 0.0, 0.0)}
    for i in range(1, n):
        unit = [1.0 if r == i - 1 else 0.0 for r in range(n - 1)]
        var = _solve(reduced, unit)[i - 1]
        half = Z95 * math.sqrt(max(var, 0.0)) * SCALE
        rating = theta[i] * SCALE
        out[levels[i]] = (rating, rating - half, rating + half)
    return out
