"""The steps between the levels offered to players, head to head, on the Elo scale.

    python -m bench.levels [--matches N] [--seed S] [--easy-random R [R ...]]

Each neighbouring pair (medium against easy, hard against medium, expert against hard)
plays ``--matches`` duplicate matches (classic, to 11, unclocked); a win rate ``p`` is a
step of ``400 log10(p / (1 - p))``. ``--easy-random`` screens the easy level's share of
cards played without thinking (in tenths, ``easy.RANDOM_IN_TEN``): medium against easy
is played once for each share, the step it gives printed. The last line is one JSON
object: ``{"steps": {"medium-easy": {...}, ...}, "easy_random": {"3": {...}, ...}}``,
each with the win rate, its 95% interval and the step.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import cast

from scopa.domain.ai import easy
from scopa.domain.ai.tournament import run
from scopa.domain.rules import make_rules
from scopa.infra.tournament import summary

NEIGHBOURS = (("medium", "easy"), ("hard", "medium"), ("expert", "hard"))


def elo_step(p: float) -> float:
    """The rating gap that makes the stronger side win a share ``p`` of its matches."""
    p = min(max(p, 1e-4), 1 - 1e-4)
    return 400 * math.log10(p / (1 - p))


def step(stronger: str, weaker: str, matches: int, seed: int) -> dict[str, object]:
    s = summary(run(stronger, weaker, matches, seed, make_rules()))
    rate = float(str(s["win_rate_a"]))
    low, high = cast(list[float], s["win_rate_ci95"])
    return {
        "win_rate": rate,
        "win_rate_ci95": [low, high],
        "elo_step": round(elo_step(rate), 1),
        "elo_step_ci95": [round(elo_step(low), 1), round(elo_step(high), 1)],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=1000)
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--easy-random", type=int, nargs="*", default=[])
    args = p.parse_args()
    steps = {}
    for stronger, weaker in NEIGHBOURS:
        steps[f"{stronger}-{weaker}"] = s = step(stronger, weaker, args.matches, args.seed)
        print(f"{stronger} against {weaker}: {s['win_rate']:.3f}, {s['elo_step']:+.0f} Elo")
    screen = {}
    shipped = easy.RANDOM_IN_TEN
    try:
        for share in args.easy_random:
            easy.RANDOM_IN_TEN = share
            screen[str(share)] = s = step("medium", "easy", args.matches, args.seed)
            print(f"easy at {share} in ten: medium {s['win_rate']:.3f}, {s['elo_step']:+.0f} Elo")
    finally:
        easy.RANDOM_IN_TEN = shipped
    print(json.dumps({"steps": steps, "easy_random": screen}))


if __name__ == "__main__":
    main()
