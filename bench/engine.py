"""How fast the engine plays: random deals per second (2-player Scopa, 4-player Scopone),
and legal-move generation.

    python -m bench.engine [--seconds S] [--seed N]

One process, one core. A deal is counted whole: shuffle (the match generator, SplitMix64),
deal, play every move to the end with a uniformly random choice among the legal moves
(``random.Random.randrange``: the engine takes any chooser), leftovers, score. Two
figures, since they serve different callers:

- ``deals_per_s``: the fast path for simulations, ``bench.playout.play_out`` and
  ``domain.scoring.deal_points``;
- ``public_deals_per_s``: the plain loop over ``Deal.legal_moves()`` and ``Deal.play()``,
  scored by ``score_deal``, as the match flow uses them;
- ``scopone_deals_per_s`` and ``scopone_public_deals_per_s``: the same two for Scopone
  deals (4 players, ten cards a seat, an empty table, no stock).

The fast path is not a second engine. It never lists the moves, but what a card may take
(the ace taking the whole table included), the positions a capture means and whether it
scores a sweep all come from the same place as ``Deal``'s: the capture tables and sweep
rule of ``domain/captures.py``. Only the commonest capture (one card, the only one of its
value on the table) is spelled out inline, and
``tests/unit/test_engine_properties.py::test_play_out_makes_the_moves_of_the_public_loop``
holds the two paths to the same moves and the same end, in every variant.

``legal_moves_us`` is one ``Deal.legal_moves()`` call on positions met in random play;
``match_legal_moves_us`` is the same through ``domain.match.legal_moves`` on a stored
``MatchState`` (which rebuilds the deal first). Each figure is the best
of three rounds, as timeit does, timed in this process's CPU time: other work on the
machine then shows less (it still shares caches). The last line is one JSON object with
every figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable, Iterator
from functools import partial

from bench.playout import play_out
from scopa.domain.cards import DECK
from scopa.domain.deal import Deal
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules, make_rules
from scopa.domain.scoring import deal_points, score_deal

RULES = make_rules()
SCOPONE = make_rules(deal="scopone", players=4)
ROUNDS = 3
ONE_IMPLEMENTATION = (
    "one rules core: play_out reads Deal's capture tables and sweep rule (domain/captures.py);"
    " a test holds it to legal_moves + play"
)


def opened_deals(seed: int, count: int, rules: Rules = RULES) -> Iterator[Deal]:
    """Fresh deals shuffled by the match generator, the deal passing round the seats: of
    2-player Scopa, or of Scopone under ``SCOPONE``."""
    players = 4 if rules.deal == "scopone" else 2
    shuffles = SplitMix64(seed)
    for i in range(count):
        deck = list(DECK)
        shuffles.shuffle(deck)
        yield Deal.open(rules, players, i % players, deck)


def fast_deals(seed: int, count: int, rules: Rules = RULES) -> None:
    pick = random.Random(seed).randrange
    for deal in opened_deals(seed, count, rules):
        play_out(deal, pick)
        deal.take_leftovers()
        deal_points(rules, deal.piles, deal.sweeps)


def public_deals(seed: int, count: int, rules: Rules = RULES) -> None:
    pick = random.Random(seed).randrange
    for deal in opened_deals(seed, count, rules):
        while not deal.is_over():
            moves = deal.legal_moves()
            deal.play(moves[pick(len(moves))])
        deal.take_leftovers()
        score_deal(rules, 1, deal.piles, deal.sweeps, (0, 0))


def per_second(run: Callable[[int, int], None], seed: int, seconds: float) -> float:
    """Deals per second, best of ``ROUNDS`` rounds of about ``seconds`` each."""
    run(seed, 200)  # warm the capture cache
    probe = time.process_time()
    run(seed, 200)
    count = max(200, int(200 * seconds / (time.process_time() - probe)))
    best = 0.0
    for r in range(ROUNDS):
        start = time.process_time()
        run(seed + r, count)
        best = max(best, count / (time.process_time() - start))
    return best


def positions(seed: int, deals: int) -> list[Deal]:
    """Every position of ``deals`` random deals, as independent copies."""
    rng = SplitMix64(seed)
    found = []
    for i in range(deals):
        deck = list(DECK)
        rng.shuffle(deck)
        deal = Deal.open(RULES, 2, i & 1, deck)
        while not deal.is_over():
            found.append(deal.clone())
            moves = deal.legal_moves()
            deal.play(moves[rng.below(len(moves))])
    return found


def match_states(seed: int, matches: int) -> list[MatchState]:
    rng = SplitMix64(seed)
    found = []
    for m in range(matches):
        state, _ = new_match(RULES, (Seat("human"), Seat("human")), seed + m)
        while state.status == "active":
            found.append(state)
            moves = legal_moves(state)
            state, _ = play(state, state.turn or 0, moves[rng.below(len(moves))])
    return found


def microseconds(calls: list[Callable[[], object]], rounds: int) -> float:
    """Microseconds per call, each call made ``rounds`` times; the best of ``ROUNDS``."""
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.process_time()
        for _ in range(rounds):
            for call in calls:
                call()
        best = min(best, (time.process_time() - start) / (rounds * len(calls)) * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one round")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    print(ONE_IMPLEMENTATION)
    fast = per_second(fast_deals, args.seed, args.seconds)
    print(f"fast playout (play_out + deal_points): {fast:,.0f} deals/s")
    public = per_second(public_deals, args.seed, args.seconds)
    print(f"public Deal API (legal_moves + play + score_deal): {public:,.0f} deals/s")
    scopone = per_second(partial(fast_deals, rules=SCOPONE), args.seed, args.seconds)
    print(f"Scopone, fast playout: {scopone:,.0f} deals/s")
    scopone_public = per_second(partial(public_deals, rules=SCOPONE), args.seed, args.seconds)
    print(f"Scopone, public Deal API: {scopone_public:,.0f} deals/s")

    deals = positions(args.seed, 300)
    moves_us = microseconds([deal.legal_moves for deal in deals], 20)
    print(f"Deal.legal_moves(): {moves_us:.2f} us per position ({len(deals)} positions)")
    states = match_states(args.seed, 3)
    match_us = microseconds([partial(legal_moves, s) for s in states], 20)
    print(f"match.legal_moves(state): {match_us:.2f} us per position ({len(states)} positions)")

    print(
        json.dumps(
            {
                "deals_per_s": round(fast),
                "public_deals_per_s": round(public),
                "scopone_deals_per_s": round(scopone),
                "scopone_public_deals_per_s": round(scopone_public),
                "legal_moves_us": round(moves_us, 3),
                "match_legal_moves_us": round(match_us, 3),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
