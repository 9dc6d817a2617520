"""How long each AI level takes to decide, on one core.

    python -m bench.ai [--positions N] [--budget-ms X] [--seed S] [--reviews M] [--players P]
                       [--deal D]

The positions are every turn of a few matches between hard players (classic rules, 2
players unless ``--players 4``), thinned to ``--positions`` spread over them: openings,
middles and ends of deals alike. Each level (the frozen ``hard-v1`` and ``expert-v1``
too) decides every position once, as the server calls it: with the server's default clock
budget of 100 ms a decision (``--budget-ms``), and once more unclocked, as the tournament
compares them. ``forced`` is the expert's time, under the budget, on the positions with
one legal move. ``seeded`` is the expert as the server runs it in a seeded match: no
clock, ``SEEDED_SAMPLES`` sampled deals, in CPU time (its ``max_ms`` must stay under the
server's budget). ``review`` is the coach's time for a whole 2-player match (seat 0 of
``--reviews`` hard-against-hard matches), in seconds of one core. The last line is one
JSON object: per level ``{"median_ms", "p99_ms", "unclocked_median_ms",
"unclocked_p99_ms"}``, then ``forced``, ``seeded`` and ``review``. ``--deal scopone`` takes
the positions from 4-player Scopone matches instead, and times the levels offered to
players only (the frozen levels and the sparring partner are Scopa's tournament opponents).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from scopa.domain.ai import LEVELS, OPPONENTS, decide
from scopa.domain.ai.review import review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play
from scopa.domain.rules import DEAL_KINDS, Rules, make_rules
from scopa.infra.ai_pool import SEEDED_SAMPLES
from scopa.infra.tournament import percentile


def seats(players: int) -> tuple[Seat, ...]:
    return (Seat("ai", "hard"),) * players


def positions(seed: int, wanted: int, rules: Rules, players: int) -> list[MatchState]:
    """Every turn of hard-against-hard matches, until there are enough, then thinned."""
    found: list[MatchState] = []
    match = 0
    while len(found) < wanted:
        state, _ = new_match(rules, seats(players), seed + match)
        while state.status == "active":
            found.append(state)
            assert state.turn is not None
            move, _ = decide(state, state.turn, "hard", len(found))
            state, _ = play(state, state.turn, move)
        match += 1
    step = len(found) / wanted
    return [found[int(i * step)] for i in range(wanted)]


def hard_match(seed: int, rules: Rules, players: int) -> tuple[MatchState, list[StoredEvent]]:
    initial, events = new_match(rules, seats(players), seed)
    state = initial
    while state.status == "active":
        assert state.turn is not None
        move, _ = decide(state, state.turn, "hard", state.seq)
        state, more = play(state, state.turn, move)
        events.extend(more)
    return initial, events


def timed(
    states: list[MatchState], level: str, budget_ms: float | None, samples: int | None = None
) -> list[float]:
    """Each decision's time in ms: wall time under a budget, as the server's clock runs;
    CPU time of this process unclocked, so a loaded machine does not inflate it."""
    took = time.perf_counter if budget_ms is not None else time.process_time
    times = []
    for i, state in enumerate(states):
        assert state.turn is not None
        start = took()
        decide(
            state,
            state.turn,
            level,
            i,
            budget_ms=budget_ms,
            samples=samples,
            clock=time.perf_counter,
        )
        times.append((took() - start) * 1000.0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--budget-ms", type=float, default=100.0, help="the expert's clock")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--reviews", type=int, default=5, help="matches the coach reviews")
    parser.add_argument("--players", type=int, choices=(2, 4), default=2)
    parser.add_argument("--deal", choices=DEAL_KINDS, default="scopa", help="scopone: 4 players")
    args = parser.parse_args()

    players = 4 if args.deal == "scopone" else args.players
    rules = make_rules(players=players, deal=args.deal)
    states = positions(args.seed, args.positions, rules, players)
    figures: dict[str, dict[str, float]] = {}
    for level in LEVELS if args.deal == "scopone" else OPPONENTS:
        clocked = timed(states, level, args.budget_ms)
        free = timed(states, level, None)
        figures[level] = {
            "median_ms": round(statistics.median(clocked), 3),
            "p99_ms": round(percentile(clocked, 99), 3),
            "unclocked_median_ms": round(statistics.median(free), 3),
            "unclocked_p99_ms": round(percentile(free, 99), 3),
        }
        f = figures[level]
        print(
            f"{level}: median {f['median_ms']:.3f} ms, p99 {f['p99_ms']:.3f} ms "
            f"(unclocked: median {f['unclocked_median_ms']:.3f} ms, "
            f"p99 {f['unclocked_p99_ms']:.3f} ms) over {len(states)} positions"
        )
    forced = timed([s for s in states if len(legal_moves(s)) == 1], "expert", args.budget_ms)
    figures["forced"] = {
        "positions": len(forced),
        "median_ms": round(statistics.median(forced), 3) if forced else 0.0,
        "max_ms": round(max(forced, default=0.0), 3),
    }
    print(f"expert, forced moves: {figures['forced']}")
    seeded = timed(states, "expert", None, SEEDED_SAMPLES[args.deal])
    figures["seeded"] = {
        "samples": SEEDED_SAMPLES[args.deal],
        "median_ms": round(statistics.median(seeded), 3),
        "p99_ms": round(percentile(seeded, 99), 3),
        "max_ms": round(max(seeded), 3),
    }
    print(f"expert in a seeded match (no clock): {figures['seeded']}")
    seconds = []
    for m in range(args.reviews):
        initial, events = hard_match(args.seed + 1000 + m, rules, players)
        start = time.process_time()
        review(initial, events, 0)
        seconds.append(time.process_time() - start)
    figures["review"] = {
        "matches": args.reviews,
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
    }
    print(f"review of a whole {players}-player match: {figures['review']}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
