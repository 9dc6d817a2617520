"""How long each AI level takes to decide, on one core.

    python -m bench.ai [--positions N] [--budget-ms X] [--seed S]

The positions are every turn of a few 2-player matches between two hard players (classic
rules), thinned to ``--positions`` spread over them: openings, middles and ends of deals
alike. Each level decides every position once, as the server calls it: the expert with
the server's default clock budget of 100 ms a decision (``--budget-ms``). The last line is
one JSON object keyed by level, each ``{"median_ms", "p99_ms"}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from domain.ai import LEVELS, decide
from domain.match import MatchState, Seat, new_match, play
from domain.rules import make_rules
from infra.tournament import percentile

RULES = make_rules()


def positions(seed: int, wanted: int) -> list[MatchState]:
    """Every turn of hard-against-hard matches, until there are enough, then thinned."""
    found: list[MatchState] = []
    match = 0
    while len(found) < wanted:
        state, _ = new_match(RULES, (Seat("ai", "hard"), Seat("ai", "hard")), seed + match)
        while state.status == "active":
            found.append(state)
            assert state.turn is not None
            move, _ = decide(state, state.turn, "hard", len(found))
            state, _ = play(state, state.turn, move)
        match += 1
    step = len(found) / wanted
    return [found[int(i * step)] for i in range(wanted)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--budget-ms", type=float, default=100.0, help="the expert's clock")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    states = positions(args.seed, args.positions)
    figures = {}
    for level in LEVELS:
        times = []
        for i, state in enumerate(states):
            assert state.turn is not None
            start = time.perf_counter()
            decide(state, state.turn, level, i, budget_ms=args.budget_ms, clock=time.perf_counter)
            times.append((time.perf_counter() - start) * 1000.0)
        figures[level] = {
            "median_ms": round(statistics.median(times), 3),
            "p99_ms": round(percentile(times, 99), 3),
        }
        print(
            f"{level}: median {figures[level]['median_ms']:.3f} ms, "
            f"p99 {figures[level]['p99_ms']:.3f} ms over {len(times)} positions"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
