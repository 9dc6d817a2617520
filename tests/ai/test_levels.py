"""Every level plays only legal moves, in every variant, and finishes whole matches."""

from __future__ import annotations

import pytest

from domain.ai import LEVELS, UnknownLevel, decide
from domain.match import MatchState, Seat, legal_moves, new_match, play
from domain.rules import make_rules

VARIANTS = {
    "classic": {},
    "fifteen": {"capture": "fifteen"},
    "ace_sweeps": {"ace_sweeps": "sweep"},
    "ace_no_point": {"ace_sweeps": "no_point"},
    "king_and_sequence": {"king_of_diamonds": True, "diamond_sequence": True, "target": 11},
    "six_cards": {"hand_size": 6},
}


def _match(players: int, seed: int, **options: object) -> MatchState:
    rules = make_rules(players=players, **options)  # type: ignore[arg-type]
    state, _ = new_match(rules, [Seat("ai", "easy")] * players, seed)
    return state


def _play_out(state: MatchState, levels: list[str], seed: int) -> MatchState:
    step = 0
    while state.status == "active":
        seat = state.turn
        assert seat is not None
        d = decide(state, seat, levels[seat], seed + step)
        legal = {(m.card, m.capture) for m in legal_moves(state)}
        assert (d.card, d.capture) in legal
        assert d.reason
        state, _ = play(state, seat, d.card, d.capture)
        step += 1
    return state


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", [lv for lv in LEVELS if lv != "expert"])
def test_each_level_finishes_a_match_with_legal_moves(level: str, variant: str) -> None:
    options = VARIANTS[variant]
    state = _play_out(_match(2, 7, **options), [level, "easy"], 1)
    assert state.status == "finished"
    assert state.winner is not None


@pytest.mark.parametrize("level", [lv for lv in LEVELS if lv != "expert"])
def test_four_players(level: str) -> None:
    state = _play_out(_match(4, 3), [level, "easy", level, "easy"], 5)
    assert state.status == "finished"


def test_unknown_level_is_refused() -> None:
    with pytest.raises(UnknownLevel):
        decide(_match(2, 1), 0, "grandmaster", 0)
