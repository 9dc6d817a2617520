"""What the levels do in positions with a clear right answer, and the parts they rest on."""

from __future__ import annotations

import itertools
import statistics
import time

import pytest

from scopa.domain.ai import decide
from scopa.domain.ai.evaluate import card_weights
from scopa.domain.ai.frozen.hard_v1 import expected_best
from scopa.domain.ai.frozen.playout import play_out, policy_move
from scopa.domain.ai.match_odds import match_odds
from scopa.domain.cards import NAME
from scopa.domain.match import MatchState, current_deal, legal_moves
from scopa.domain.rules import make_rules
from tests.ai.positions import VARIANTS, position, random_positions, rules_for


def _move(level: str, state: MatchState, samples: int = 40) -> tuple[str, list[str]]:
    assert state.turn is not None
    move, _ = decide(state, state.turn, level, 1, samples=samples)
    return NAME[move.card], sorted(NAME[c] for c in move.capture)


@pytest.mark.parametrize("level", ["medium", "hard", "expert"])
def test_takes_the_settebello(level: str) -> None:
    state = position(["7C KS 2H", "AC 4C 5C"], "7D 3C 6H")
    _, taken = _move(level, state)
    assert "7D" in taken


@pytest.mark.parametrize("level", ["medium", "hard", "expert"])
def test_sweeps_when_it_can(level: str) -> None:
    state = position(["7C KS 2H", "AC 4C 5C"], "3C 4H")
    assert _move(level, state) == ("7C", ["3C", "4H"])


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_avoids_leaving_a_sweep(level: str) -> None:
    # The 2 leaves 6 + 2 = 8 for any jack; the king leaves 16, which nothing sweeps.
    state = position(["2C KD", "AC 4C 5C"], "6H")
    assert _move("medium", state) == ("2C", [])
    assert _move(level, state, samples=60) == ("KD", [])
    if level == "hard":
        assert decide(state, 0, "hard", 1)[1] == "avoids leaving a sweep"


def test_hard_plays_for_its_team_in_four() -> None:
    # Seat 0's partner is seat 2: leaving a sweep costs team 0, the rivals sit at 1 and 3.
    state = position(["2C KD", "AC 4C 5C", "JS QS 3S", "AH 4H 5H"], "6H")
    assert _move("hard", state) == ("KD", [])


def test_expected_best_is_the_mean_of_the_best_held_card() -> None:
    damages = [1.0, -0.5, 0.25, 0.0, 2.0, 0.5]
    for held in range(1, 5):
        hands = list(itertools.combinations(damages, held))
        brute = statistics.fmean(max(h) for h in hands)
        assert expected_best(list(damages), held) == pytest.approx(brute)
    assert expected_best([1.0], 0) == 0.0


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_playout_policy_plays_legal_moves_to_the_end(variant: str) -> None:
    rules = rules_for(variant)
    weights = card_weights(rules, ((), ()), 0)
    for state in random_positions(rules, 2, seed=31, count=25):
        deal = current_deal(state)
        replay = deal.clone()
        while not replay.is_over():
            move = policy_move(replay, weights)
            assert move in replay.legal_moves()
            replay.play(move)
        replay.take_leftovers()
        play_out(deal, weights)
        assert not deal.table
        assert deal.piles == replay.piles
        assert sum(map(len, deal.piles)) == 40 or deal.last_capturer is None


def test_match_odds_favour_the_leader_and_are_symmetric() -> None:
    rules = make_rules()
    even = match_odds(rules, (5, 5), 0)
    assert even(0, 0) == pytest.approx(0.5)
    assert even(2, 0) > even(1, 0) > even(0, 0) > even(0, 1)
    for mine, theirs in [(0, 0), (1, 3), (4, 2), (6, 0)]:
        a = match_odds(rules, (3, 7), 0)(mine, theirs)
        b = match_odds(rules, (3, 7), 1)(theirs, mine)
        assert a + b == pytest.approx(1.0)
    near = match_odds(rules, (10, 9), 0)
    assert near(1, 0) == 1.0  # 11 against 9
    assert near(1, 1) == 1.0  # 11 against 10: the higher total wins
    assert near(0, 2) == 0.0
    assert near(1, 2) == 0.5  # 11 all: another deal, an even chance


def test_expert_v1_within_a_small_time_budget() -> None:
    ticks = iter(range(10**6))
    state = position(["7C KS 2H", "AC 4C 5C"], "3D 6H QC JH")
    # A clock that moves 1 ms each time it is read, once a sample after the first eight: the
    # 27 ms it may spend (nine tenths of 30) end the sampling long before the cap of 600.
    clock = lambda: next(ticks) / 1000  # noqa: E731
    move, reason = decide(state, 0, "expert-v1", 5, budget_ms=30, clock=clock)
    assert move in legal_moves(state)
    sampled = int(reason.split(" over ")[1].split()[0])
    assert 8 + 20 <= sampled <= 8 + 27


def test_expert_stops_when_the_budget_is_spent() -> None:
    ticks = iter(range(10**6))
    state = position(["7C KS 2H", "AC 4C 5C"], "3D 6H QC JH")
    # Each read of this clock moves it 20 ms: after the first few worlds, the 27 ms it may
    # spend are gone at once, long before the racing would have ended the search.
    clock = lambda: next(ticks) / 50  # noqa: E731
    move, reason = decide(state, 0, "expert", 5, budget_ms=30, clock=clock)
    assert move in legal_moves(state)
    assert reason.endswith("over 3 sampled deals")


def test_a_budget_needs_a_clock() -> None:
    state = position(["7C KS 2H", "AC 4C 5C"], "3D 6H QC JH")
    with pytest.raises(ValueError, match="clock"):
        decide(state, 0, "expert", 5, budget_ms=30)


def test_expert_with_a_real_clock_is_legal_and_prompt() -> None:
    for i, state in enumerate(random_positions(rules_for("classic"), 2, seed=41, count=12)):
        assert state.turn is not None
        start = time.perf_counter()
        move, _ = decide(state, state.turn, "expert", i, budget_ms=10, clock=time.perf_counter)
        assert time.perf_counter() - start < 1.0
        assert move in legal_moves(state)


def test_expert_solves_the_last_cards_exactly() -> None:
    # The stock is gone and the rival's 5 is the only unseen card: 7 sweeps 5+2, and the
    # 5 and 2 that follow are left to the last capturer.
    state = position(["7C 2H", "5S"], "5C 2C", stock=0)
    move, reason = decide(state, 0, "expert", 1)
    assert str(move) == "7C:2C+5C"
    assert reason.endswith("the rest of the deal worked out exactly")


def test_expert_hint_names_the_sweep_it_denies() -> None:
    # Laying the 2 leaves 6 + 2 = 8 for the rival's jack; the king leaves 16.
    state = position(["2C KD", "JS AS"], "6H", stock=0)
    move, reason = decide(state, 0, "expert", 1)
    assert str(move) == "KD:"
    assert reason.startswith("denies a sweep (the next best move lets the rival sweep in 1 of 1")
    sampled = position(["2C KD", "AC 4C 5C"], "6H")
    move, reason = decide(sampled, 0, "expert", 1)
    assert str(move) == "KD:"
    assert reason.startswith("denies a sweep")
    swept, seen = (int(w) for w in reason.split(" in ")[1].split()[0:3:2])
    assert 0 < swept <= seen


def test_expert_hint_names_the_settebello_it_keeps() -> None:
    # Laid, the settebello falls to the rival's 7; the 6 keeps it in hand.
    state = position(["7D 6C", "7C 2S"], "KS 5D", stock=0)
    move, reason = decide(state, 0, "expert", 1)
    assert str(move) == "6C:"
    assert reason.startswith("keeps the settebello race")


def test_expert_hint_names_the_settebello_it_takes() -> None:
    state = position(["7C KS 2H", "AC 4C 5C"], "7D 3C 6H")
    _, reason = decide(state, 0, "expert", 1)
    assert reason.startswith("takes the settebello: best of 3 moves")
