"""Matches between two AI levels with duplicate deals.

Each match seed is played twice, the second time with the sides swapped, so both levels
get the same deck sequence from the same seats and the luck of the deal cancels out. With
4 players, level A holds team 0 (seats 0 and 2) and then team 1. The domain reads no
clock of its own: pass one in to time the decisions.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from scopa.domain.ai import decide
from scopa.domain.match import MatchState, Seat, new_match, play
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules

Clock = Callable[[], float]  # seconds


class MatchRecord(msgspec.Struct, frozen=True):
    seed: int
    a_team: int  # the team level A played
    a_won: bool
    deal_diffs: tuple[int, ...]  # points of A minus points of B, deal by deal
    scores: tuple[int, ...]  # final, by team


class TournamentResult(msgspec.Struct, frozen=True):
    level_a: str
    level_b: str
    players: int
    records: tuple[MatchRecord, ...]
    ms_a: tuple[float, ...]  # each decision's time, when a clock was given
    ms_b: tuple[float, ...]


def match_seeds(seed: int, pairs: int) -> list[int]:
    """One match seed per duplicate pair (a match seed is at most 2**63 - 1)."""
    rng = SplitMix64(seed)
    return [rng.next64() >> 1 for _ in range(pairs)]


def play_match(
    rules: Rules,
    levels: list[str],
    seed: int,
    budget_ms: float | None = None,
    clock: Clock | None = None,
) -> tuple[MatchState, list[list[float]]]:
    """One match, seat ``i`` played by ``levels[i]``; the decision times by seat, in ms."""
    state, _ = new_match(rules, [Seat("ai", lv) for lv in levels], seed)
    times: list[list[float]] = [[] for _ in levels]
    # The AIs' own draws come from a stream apart from the match's shuffles.
    move_seeds = SplitMix64(seed ^ 0x5DEECE66D)
    while state.status == "active":
        seat = state.turn
        assert seat is not None
        started = clock() if clock else 0.0
        move, _ = decide(state, seat, levels[seat], move_seeds.next64(), budget_ms, clock=clock)
        if clock:
            times[seat].append((clock() - started) * 1000.0)
        state, _ = play(state, seat, move)
    return state, times


def run(
    level_a: str,
    level_b: str,
    matches: int,
    seed: int,
    rules: Rules,
    players: int = 2,
    budget_ms: float | None = None,
    clock: Clock | None = None,
    on_match: Callable[[MatchRecord], None] | None = None,
) -> TournamentResult:
    """``matches`` matches, in duplicate pairs (A on team 0, then A on team 1)."""
    records: list[MatchRecord] = []
    ms: tuple[list[float], list[float]] = ([], [])
    for i, match_seed in enumerate(match_seeds(seed, (matches + 1) // 2)):
        for a_team in (0, 1):
            if 2 * i + a_team >= matches:
                break
            levels = [level_a if seat % 2 == a_team else level_b for seat in range(players)]
            state, times = play_match(rules, levels, match_seed, budget_ms, clock)
            for seat, seat_times in enumerate(times):
                ms[0 if seat % 2 == a_team else 1].extend(seat_times)
            before: tuple[int, ...] = (0, 0)
            diffs = []
            for score in state.deal_scores:
                gained = [score.scores[t] - before[t] for t in (0, 1)]
                diffs.append(gained[a_team] - gained[1 - a_team])
                before = score.scores
            record = MatchRecord(
                seed=match_seed,
                a_team=a_team,
                a_won=state.winner == a_team,
                deal_diffs=tuple(diffs),
                scores=state.scores,
            )
            records.append(record)
            if on_match:
                on_match(record)
    return TournamentResult(
        level_a=level_a,
        level_b=level_b,
        players=players,
        records=tuple(records),
        ms_a=tuple(ms[0]),
        ms_b=tuple(ms[1]),
    )
