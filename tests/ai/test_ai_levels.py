"""Every level plays only legal moves, in every variant, and finishes whole matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa.domain.ai import LEVELS, UnknownLevel, decide
from scopa.domain.errors import MatchNotActive, NotYourTurn
from scopa.domain.match import MatchState, legal_moves, play
from scopa.domain.moves import Move
from tests.ai.positions import VARIANTS, fresh_match, random_positions, rules_for

# Expert samples kept small here, and matches short (a deal or two, not a match to 11 or
# 21): these tests are about legality, not strength.
SAMPLES = 3
TARGET = 4


def _decide(state: MatchState, level: str, seed: int) -> tuple[Move, str]:
    assert state.turn is not None
    return decide(state, state.turn, level, seed, samples=SAMPLES)


def _play_out(state: MatchState, levels: list[str], seed: int) -> MatchState:
    step = 0
    while state.status == "active":
        seat = state.turn
        assert seat is not None
        move, reason = _decide(state, levels[seat], seed + step)
        assert move in legal_moves(state)
        assert reason
        state, _ = play(state, seat, move)
        step += 1
    return state


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_finishes_a_match_with_legal_moves(level: str, variant: str) -> None:
    state = _play_out(fresh_match(rules_for(variant, target=TARGET), 2, 7), [level, "medium"], 1)
    assert state.status == "finished"
    assert state.winner is not None
    assert max(state.scores) >= state.rules.target


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "six_cards"])
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_finishes_a_four_player_match(level: str, variant: str) -> None:
    start = fresh_match(rules_for(variant, 4, target=TARGET), 4, 3)
    state = _play_out(start, [level, "hard", level, "easy"], 5)
    assert state.status == "finished"
    assert state.winner is not None


@pytest.mark.parametrize(
    ("variant", "players"),
    [(v, n) for v in VARIANTS for n in (2, 4) if not (n == 4 and v == "six_cards")],
)
def test_every_level_is_legal_in_random_positions(variant: str, players: int) -> None:
    rules = rules_for(variant, players)
    for i, state in enumerate(random_positions(rules, players, seed=11, count=60)):
        legal = set(legal_moves(state))
        for level in LEVELS:
            move, _ = _decide(state, level, i)
            assert move in legal, (level, state)


def test_unknown_level_is_refused() -> None:
    state = fresh_match(rules_for("classic"), 2, 1)
    assert state.turn is not None
    with pytest.raises(UnknownLevel):
        decide(state, state.turn, "grandmaster", 0)


def test_only_the_seat_to_play_may_ask() -> None:
    state = fresh_match(rules_for("classic"), 2, 1)
    assert state.turn is not None
    with pytest.raises(NotYourTurn):
        decide(state, 1 - state.turn, "hard", 0)


def test_a_finished_match_has_no_move() -> None:
    state = _play_out(fresh_match(rules_for("classic"), 2, 2), ["easy", "easy"], 0)
    with pytest.raises(MatchNotActive):
        decide(state, 0, "hard", 0)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    variant=st.sampled_from(sorted(VARIANTS)),
    four=st.booleans(),
    moves=st.integers(0, 60),
)
def test_any_position_gets_a_legal_move(seed: int, variant: str, four: bool, moves: int) -> None:
    players = 4 if four and variant != "six_cards" else 2
    *_, state = random_positions(rules_for(variant, players), players, seed, moves + 1)
    legal = set(legal_moves(state))
    for level in LEVELS:
        move, _ = _decide(state, level, seed)
        assert move in legal
