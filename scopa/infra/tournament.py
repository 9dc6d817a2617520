"""``scopa tournament``: two AI levels play duplicate matches; the figures that compare them."""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import cast

from scopa.domain.ai import OPPONENTS
from scopa.domain.ai.tournament import MatchRecord, TournamentResult, run
from scopa.domain.errors import InvalidSetup
from scopa.domain.rules import DEAL_KINDS, Rules, make_rules
from scopa.infra.ratings import fit

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return ((centre - spread) / denominator, (centre + spread) / denominator)


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, tuple[float, float]]:
    """The mean and its normal-approximation 95% interval."""
    if not values:
        return (0.0, (0.0, 0.0))
    mean = statistics.fmean(values)
    if len(values) < 2:
        return (mean, (mean, mean))
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return (mean, (mean - half, mean + half))


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (q in 0..100)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def timing(values: Sequence[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values), 3) if values else 0.0,
        "p99_ms": round(percentile(values, 99), 3),
    }


def summary(result: TournamentResult) -> dict[str, object]:
    records = result.records
    wins_a = sum(r.a_won for r in records)
    diffs = [d for r in records for d in r.deal_diffs]
    mean, ci = mean_ci(diffs)
    low, high = wilson(wins_a, len(records))
    return {
        "a": result.level_a,
        "b": result.level_b,
        "players": result.players,
        "matches": len(records),
        "wins_a": wins_a,
        "wins_b": len(records) - wins_a,
        "deals": len(diffs),
        "mean_diff_per_deal": round(mean, 4),
        "ci95": [round(ci[0], 4), round(ci[1], 4)],
        "win_rate_a": round(wins_a / len(records), 4) if records else 0.0,
        "win_rate_ci95": [round(low, 4), round(high, 4)],
        "ms_a": timing(result.ms_a),
        "ms_b": timing(result.ms_b),
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="scopa tournament", description="AI level A against level B, duplicate deals"
    )
    p.add_argument("--a", choices=OPPONENTS, help="level A")
    p.add_argument("--b", choices=OPPONENTS, help="level B")
    p.add_argument(
        "--ladder",
        help="comma-separated levels: play every pairing of them (--matches each) and fit "
        "Elo-scale ratings, the first level at 0",
    )
    p.add_argument("--matches", type=int, default=100, help="matches in all (pairs of two)")
    p.add_argument(
        "--seed",
        type=int,
        default=1,
        help="draws every match's deals: the same seed, the same deals (default %(default)s)",
    )
    p.add_argument(
        "--players",
        type=int,
        choices=(2, 4),
        default=2,
        help="seats a match: 2, or 4 in two teams (default %(default)s)",
    )
    p.add_argument("--target", type=int, default=None, help="points to win (default 11)")
    p.add_argument(
        "--deal",
        choices=DEAL_KINDS,
        default="scopa",
        help="how the cards are dealt: scopa, or scopone (4 players, ten cards a seat)",
    )
    p.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="expert's clock per decision (wall time), as the server's SCOPA_AI_BUDGET_MS; "
        "without it decisions are timed in CPU",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="with --ladder, how many processes play the pairings (default %(default)s); "
        "each pairing still times its decisions on one core",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="a line per match on stderr")
    return p


def _clock(budget_ms: float | None) -> Callable[[], float]:
    """Unclocked, a decision is timed in CPU seconds of this process (one core), so the
    figures do not grow with the machine's load; a budget is wall time, as the server's."""
    return time.perf_counter if budget_ms is not None else time.process_time


def _report(s: dict[str, object]) -> str:
    ms_a = s["ms_a"]
    ms_b = s["ms_b"]
    assert isinstance(ms_a, dict)
    assert isinstance(ms_b, dict)
    ci = s["ci95"]
    wr = s["win_rate_ci95"]
    assert isinstance(ci, list)
    assert isinstance(wr, list)
    return "\n".join(
        [
            f"{s['a']} (A) vs {s['b']} (B), {s['players']} players, {s['matches']} matches",
            f"wins A {s['wins_a']}, losses A {s['wins_b']}",
            f"mean point difference per deal (A - B): {s['mean_diff_per_deal']:+.3f} "
            f"over {s['deals']} deals, 95% CI [{ci[0]:+.3f}, {ci[1]:+.3f}]",
            f"match win rate A: {s['win_rate_a']:.3f}, 95% CI (Wilson) [{wr[0]:.3f}, {wr[1]:.3f}]",
            f"decision time A: median {ms_a['median_ms']:.2f} ms, p99 {ms_a['p99_ms']:.2f} ms",
            f"decision time B: median {ms_b['median_ms']:.2f} ms, p99 {ms_b['p99_ms']:.2f} ms",
        ]
    )


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.matches < 1 or args.jobs < 1:
        print("--matches and --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        rules = make_rules(target=args.target, players=args.players, deal=args.deal)
    except InvalidSetup as refused:
        print("; ".join(f"{field}: {why}" for field, why in refused.problems), file=sys.stderr)
        return 2
    if args.ladder:
        return _ladder(args, rules)
    if not (args.a and args.b):
        print("--a and --b are needed, or --ladder", file=sys.stderr)
        return 2

    def progress(record: MatchRecord) -> None:
        side = "A" if record.a_won else "B"
        print(f"match seed {record.seed} A team {record.a_team}: {side} wins", file=sys.stderr)

    result = run(
        args.a,
        args.b,
        args.matches,
        args.seed,
        rules,
        players=args.players,
        budget_ms=args.budget_ms,
        clock=_clock(args.budget_ms),
        on_match=progress if args.progress else None,
    )
    s = summary(result)
    print(json.dumps(s) if args.json else _report(s))
    return 0


def _pairing(pair: tuple[str, str], args: argparse.Namespace, rules: Rules) -> dict[str, object]:
    a, b = pair
    clock = _clock(args.budget_ms)
    return summary(run(a, b, args.matches, args.seed, rules, args.players, args.budget_ms, clock))


def _ladder(args: argparse.Namespace, rules: Rules) -> int:
    levels = args.ladder.split(",")
    unknown = [lv for lv in levels if lv not in OPPONENTS]
    if unknown or len(levels) < 2:
        print(f"--ladder needs two or more of {', '.join(OPPONENTS)}", file=sys.stderr)
        return 2
    pairs = [(a, b) for i, a in enumerate(levels) for b in levels[i + 1 :]]
    play = functools.partial(_pairing, args=args, rules=rules)
    pairings = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for s in pool.map(play, pairs):
            pairings.append(s)
            if not args.json:
                print(_report(s), end="\n\n", flush=True)
    results = [
        (str(s["a"]), str(s["b"]), int(str(s["wins_a"])), int(str(s["wins_b"]))) for s in pairings
    ]
    ratings = {
        lv: {"elo": round(r, 1), "ci95": [round(lo, 1), round(hi, 1)]}
        for lv, (r, lo, hi) in fit(levels, results).items()
    }
    if args.json:
        print(json.dumps({"pairings": pairings, "ratings": ratings}))
    else:
        for lv, r in sorted(ratings.items(), key=lambda item: -float(str(item[1]["elo"]))):
            lo, hi = cast(list[float], r["ci95"])
            print(f"{lv:10} {r['elo']:+7.1f}  95% CI [{lo:+.1f}, {hi:+.1f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
