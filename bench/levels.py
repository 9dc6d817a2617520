"""The steps between the levels offered to players, head to head, on the Elo scale.

    python -m bench.levels [--matches N] [--seed S] [--easy-random R [R ...]]
                           [--medium-random R [R ...]]

Each neighbouring pair (medium against easy, hard against medium, expert against hard)
plays ``--matches`` duplicate matches (classic, to 11, unclocked); a win rate ``p`` is a
step of ``400 log10(p / (1 - p))``. ``--easy-random`` screens the easy level's share of
cards played without thinking (in tenths, ``easy.RANDOM_IN_TEN``): medium against easy
is played once for each share, the step it gives printed; ``--medium-random`` likewise
medium's share (``medium.RANDOM_IN_TEN``), hard against medium. The last line is one
JSON object: ``{"steps": {"medium-easy": {...}, ...}, "easy_random": {"4": {...}, ...},
"medium_random": {...}}``, each with the win rate, its 95% interval and the step.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Protocol, cast

from scopa.domain.ai import easy, medium
from scopa.domain.ai.tournament import run
from scopa.domain.rules import make_rules
from scopa.infra.tournament import summary

NEIGHBOURS = (("medium", "easy"), ("hard", "medium"), ("expert", "hard"))


class Slipping(Protocol):
    RANDOM_IN_TEN: int  # cards in ten played without thinking


# The levels that play a share of their cards without thinking, by name.
SLIPS: dict[str, Slipping] = {"easy": easy, "medium": medium}


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


def screen(level: str, shares: list[int], matches: int, seed: int) -> dict[str, object]:
    """``level`` at each share of cards played without thinking (in tenths), against the
    level above it; the shipped share is put back after."""
    module = SLIPS[level]
    above = next(stronger for stronger, weaker in NEIGHBOURS if weaker == level)
    shipped = module.RANDOM_IN_TEN
    found: dict[str, object] = {}
    try:
        for share in shares:
            module.RANDOM_IN_TEN = share
            found[str(share)] = s = step(above, level, matches, seed)
            rate, elo = s["win_rate"], s["elo_step"]
            print(f"{level} at {share} in ten: {above} {rate:.3f}, {elo:+.0f} Elo")
    finally:
        module.RANDOM_IN_TEN = shipped
    return found


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=1000)
    p.add_argument("--seed", type=int, default=31)
    for level in SLIPS:
        p.add_argument(f"--{level}-random", type=int, nargs="*", default=[])
    args = p.parse_args()
    steps = {}
    for stronger, weaker in NEIGHBOURS:
        steps[f"{stronger}-{weaker}"] = s = step(stronger, weaker, args.matches, args.seed)
        print(f"{stronger} against {weaker}: {s['win_rate']:.3f}, {s['elo_step']:+.0f} Elo")
    screens = {
        f"{level}_random": screen(level, getattr(args, f"{level}_random"), args.matches, args.seed)
        for level in SLIPS
    }
    print(json.dumps({"steps": steps, **screens}))


if __name__ == "__main__":
    main()
