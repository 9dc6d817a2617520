"""How a match ends early (docs/api.md, "Ending a match early, and turn clocks"): resign,
abort, expire, abandon, timeouts.

Each ending is one change (version + 1) whose log ends with ``match_finished`` and its
reason; the deal in progress stays as it stood, unscored.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scopa.contract.views import match_view
from scopa.domain.errors import CannotAbort, InvalidSetup, MatchNotActive, SeatNotOpen
from scopa.domain.events import CardPlayed, MatchFinished, StoredEvent
from scopa.domain.match import (
    MatchState,
    Seat,
    SeatKind,
    abandon,
    abort,
    expire,
    human_has_played,
    join,
    new_match,
    on_the_clock,
    play,
    replay,
    resign,
    time_out,
)
from scopa.domain.rules import Rules, make_rules
from tests.unit.build import first_move, play_through

AUTOPLAY = make_rules(turn_seconds=30)
Step = Callable[[MatchState], tuple[MatchState, list[StoredEvent]]]
FORFEIT = make_rules(turn_seconds=30, on_timeout="forfeit")


def started(
    rules: Rules | None = None, kinds: tuple[SeatKind, ...] = ("human", "human"), seed: int = 3
) -> tuple[MatchState, list[StoredEvent]]:
    seats = [Seat(k, "easy" if k == "ai" else None) for k in kinds]
    return new_match(rules or make_rules(players=len(kinds)), seats, seed, first_dealer=0)


def move(state: MatchState) -> tuple[MatchState, list[StoredEvent]]:
    assert state.turn is not None
    return play(state, state.turn, first_move(state))


def auto(state: MatchState) -> tuple[MatchState, list[StoredEvent]]:
    return time_out(state, first_move(state))


def test_resigning_hands_the_match_to_the_other_team_as_the_deal_stood() -> None:
    state, _ = move(started()[0])
    before = state
    state, events = resign(state, 0)
    assert events == [MatchFinished(seq=before.seq + 1, winner=1, scores=(0, 0), reason="resigned")]
    assert (state.status, state.winner, state.end_reason) == ("finished", 1, "resigned")
    assert (state.version, state.seq, state.turn) == (before.version + 1, before.seq + 1, None)
    assert (state.hands, state.table, state.stock) == (before.hands, before.table, before.stock)
    assert state.deal_scores == ()


def test_in_four_players_a_seat_resigns_for_its_team() -> None:
    state, _ = started(make_rules(players=4), ("human",) * 4)
    assert resign(state, 3)[0].winner == 0
    assert resign(state, 2)[0].winner == 1


@pytest.mark.parametrize("status", ["waiting", "finished"])
def test_only_an_active_match_can_be_resigned(status: str) -> None:
    if status == "waiting":
        state, _ = started(kinds=("human", "open"))
    else:
        state, _ = play_through(started(make_rules(target=1))[0])
    with pytest.raises(MatchNotActive):
        resign(state, 0)


def test_a_waiting_match_can_be_aborted_and_its_open_seats_close() -> None:
    state, _ = started(kinds=("human", "open"))
    state, events = abort(state)
    assert (state.status, state.winner, state.end_reason, state.version) == (
        "finished", None, "aborted", 1,
    )  # fmt: skip
    assert events == [MatchFinished(seq=1, winner=None, scores=(0, 0), reason="aborted")]
    with pytest.raises(SeatNotOpen):
        join(state, 1)


def test_abort_stands_until_a_human_plays_a_card_of_its_own() -> None:
    state, _ = started(kinds=("ai", "human"))  # dealer 0: seat 1, the human, leads
    assert abort(state)[0].end_reason == "aborted"
    assert state.turn == 1
    played, _ = move(state)
    assert human_has_played(played)
    with pytest.raises(CannotAbort):
        abort(played)


def test_an_ai_card_or_an_autoplayed_one_does_not_stop_an_abort() -> None:
    state, _ = started(AUTOPLAY, ("human", "ai"))  # seat 1, the AI, leads
    state, _ = move(state)
    assert not human_has_played(state)
    state, _ = auto(state)  # seat 0's time ran out
    state, _ = move(state)
    assert not human_has_played(state)
    assert abort(state)[0].end_reason == "aborted"
    state, _ = move(state)  # seat 0 plays itself at last
    with pytest.raises(CannotAbort):
        abort(state)


def test_a_finished_match_cannot_be_aborted() -> None:
    state, _ = play_through(started(make_rules(target=1))[0])
    with pytest.raises(CannotAbort):
        abort(state)


def test_a_match_played_past_its_first_deal_cannot_be_aborted() -> None:
    state, _ = play_through(started(make_rules(target=11))[0], until_deal=2)
    assert state.deal == 2
    with pytest.raises(CannotAbort):
        abort(state)


def test_expiry_is_for_waiting_matches_and_abandonment_for_a_human_turn() -> None:
    waiting, _ = started(kinds=("human", "open"))
    assert expire(waiting)[0].end_reason == "expired"
    active, _ = started()
    with pytest.raises(MatchNotActive):
        expire(active)
    assert abandon(active)[0].end_reason == "abandoned"
    assert abandon(active)[0].winner is None
    ai_turn, _ = started(kinds=("human", "ai"))
    with pytest.raises(MatchNotActive):
        abandon(ai_turn)


def test_forfeit_loses_the_seats_team_the_match() -> None:
    state, _ = started(FORFEIT)
    assert state.turn == 1
    state, events = time_out(state)
    assert (state.status, state.winner, state.end_reason) == ("finished", 0, "timeout")
    assert [type(e) for e in events] == [MatchFinished]


def test_autoplay_plays_for_the_seat_and_the_third_timeout_in_a_row_loses() -> None:
    state, _ = started(AUTOPLAY)
    log: list[StoredEvent] = []
    for _ in range(3):
        state, events = auto(state)  # seat 1 times out
        log += events
        if state.status == "active":
            state, events = move(state)  # seat 0 plays
            log += events
    plays = [e for e in log if isinstance(e, CardPlayed)]
    assert [p.seat for p in plays] == [1, 0, 1, 0, 1]
    assert [p.auto for p in plays] == [True, False, True, False, True]
    assert (state.status, state.winner, state.end_reason) == ("finished", 0, "timeout")
    assert isinstance(log[-1], MatchFinished)
    assert log[-1].reason == "timeout"
    assert isinstance(log[-2], CardPlayed)
    assert log[-2].auto


def test_a_card_the_seat_plays_itself_starts_the_count_again() -> None:
    state, _ = started(AUTOPLAY)
    state, _ = move(auto(move(auto(state)[0])[0])[0])  # seat 1 times out twice
    assert state.timeouts == (0, 2)
    state, _ = move(move(state)[0])  # seat 1 plays itself, then seat 0
    assert state.timeouts == (0, 0)
    state, _ = move(auto(move(auto(state)[0])[0])[0])
    assert (state.status, state.timeouts) == ("active", (0, 2))


def test_in_four_players_a_seats_timeouts_lose_its_team_the_match() -> None:
    state, _ = started(make_rules(players=4, turn_seconds=5, on_timeout="forfeit"), ("human",) * 4)
    assert state.turn == 1
    assert time_out(state)[0].winner == 0


def test_time_out_needs_a_human_to_play_and_autoplay_a_card() -> None:
    ai_turn, _ = started(AUTOPLAY, ("human", "ai"))
    with pytest.raises(MatchNotActive):
        time_out(ai_turn, first_move(ai_turn))
    with pytest.raises(ValueError, match="move"):
        time_out(started(AUTOPLAY)[0])


def test_the_log_replays_every_kind_of_ending() -> None:
    timing_out = [auto, move, auto, move, auto]
    endings: list[tuple[Rules, list[Step]]] = [
        (make_rules(), [move, move, lambda s: resign(s, 1)]),
        (make_rules(), [abort]),
        (make_rules(), [move, abandon]),
        (FORFEIT, [move, move, time_out]),
        (AUTOPLAY, [move, *timing_out]),
    ]
    for rules, steps in endings:
        initial, log = started(rules)
        state = initial
        for step in steps:
            state, events = step(state)
            log += events
        assert state.status == "finished"
        assert replay(initial, log) == state


def test_a_match_that_ended_mid_deal_is_shown_as_the_deal_stood() -> None:
    state, _ = move(started()[0])
    before = match_view("m", state, 0)
    view = match_view("m", resign(state, 0)[0], 0)
    assert (view.status, view.end_reason, view.winner, view.turn) == (
        "finished", "resigned", 1, None,
    )  # fmt: skip
    assert view.hand == ()
    assert view.legal_moves == ()
    assert (view.table, view.deck_count, view.teams) == (
        before.table, before.deck_count, before.teams,
    )  # fmt: skip
    assert [s.hand_count for s in view.seats] == [s.hand_count for s in before.seats]


def test_the_turn_deadline_shows_only_while_a_human_is_on_the_clock() -> None:
    moment = 1_796_119_205.25
    clocked, _ = started(AUTOPLAY, ("human", "ai"))
    assert on_the_clock(clocked) is None  # the AI leads
    assert match_view("m", clocked, 0, deadline=moment).turn_deadline is None
    human, _ = move(clocked)
    assert on_the_clock(human) == 0
    assert match_view("m", human, None, deadline=moment).turn_deadline == (
        "2026-12-01T10:00:05.250Z"
    )
    unclocked, _ = started()
    assert match_view("m", unclocked, 0, deadline=moment).turn_deadline is None
    assert match_view("m", resign(human, 0)[0], 0, deadline=moment).turn_deadline is None


@pytest.mark.parametrize("seconds", [4, 86_401, 0, -5])
def test_a_clock_is_5_seconds_to_a_day(seconds: int) -> None:
    with pytest.raises(InvalidSetup) as refused:
        make_rules(turn_seconds=seconds)
    assert refused.value.problems[0][0] == "rules.turn_seconds"


def test_on_timeout_without_a_clock_is_accepted_and_changes_nothing() -> None:
    rules = make_rules(on_timeout="forfeit")
    assert (rules.turn_seconds, rules.on_timeout) == (None, "forfeit")
    assert on_the_clock(started(rules)[0]) is None
    assert make_rules(turn_seconds=5).turn_seconds == 5
    assert make_rules(turn_seconds=86_400).on_timeout == "autoplay"
