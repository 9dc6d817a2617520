"""Rated matches: the format, how each end counts, the team rule and the AI's fixed
ratings; and the worked example docs/api.md gives, checked against the paper's."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from scopa.domain.errors import CannotAbort
from scopa.domain.events import MatchFinished
from scopa.domain.glicko import Rating, Result, rate
from scopa.domain.match import (
    MatchState,
    Seat,
    abandon,
    abort,
    human_has_played,
    human_to_play,
    new_match,
    resign,
)
from scopa.domain.rated import AI_RATINGS, format_of, new_ratings, result_of
from scopa.domain.rules import make_rules

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def dealt(*seats: Seat, target: int = 11, rated: bool = True) -> MatchState:
    state, _ = new_match(make_rules(target=target), seats, 1, rated=rated)
    return state


def player(handle: str) -> Seat:
    return Seat("human", name=handle, player=handle)


def test_formats_are_players_then_target() -> None:
    assert [format_of(p, t) for p, t in ((2, 11), (2, 21), (4, 11), (4, 21))] == [
        "2p-11", "2p-21", "4p-11", "4p-21",
    ]  # fmt: skip
    assert format_of(2, 16) is None


def test_a_resignation_loses_and_an_abort_counts_for_nobody() -> None:
    state = dealt(player("ada"), player("bea"))
    resigned, _ = resign(state, 0)
    assert (result_of(resigned, 0), result_of(resigned, 1)) == ("lost", "won")
    aborted, _ = abort(dealt(player("ada"), Seat("open")))
    assert (result_of(aborted, 0), result_of(aborted, 1)) == ("none", "none")
    assert new_ratings(aborted, {}) == {}


def test_a_rated_match_is_aborted_only_before_its_seats_see_their_cards() -> None:
    """Dealt, each seat sees its hand: an abort then would let a player who dislikes its
    cards leave unrated. Unrated, a dealt match nobody played in may still be aborted."""
    rated = dealt(player("ada"), Seat("ai", "easy"))
    assert rated.status == "active"
    assert not human_has_played(rated)
    with pytest.raises(CannotAbort, match="rated"):
        abort(rated)
    aborted, _ = abort(dealt(player("ada"), Seat("ai", "easy"), rated=False))
    assert aborted.end_reason == "aborted"


def test_walking_away_from_a_rated_match_loses_it_on_time() -> None:
    state = dealt(player("ada"), player("bea"))
    away = human_to_play(state)
    assert away is not None
    lost, events = abandon(state)
    assert (lost.end_reason, lost.winner) == ("timeout", 1 - away)
    assert (result_of(lost, away), result_of(lost, 1 - away)) == ("lost", "won")
    assert sorted(new_ratings(lost, {})) == ["ada", "bea"]
    assert [(e.reason, e.winner) for e in events if isinstance(e, MatchFinished)] == [
        ("timeout", 1 - away)
    ]
    # Unrated, nobody wins an abandoned match.
    left, _ = abandon(dealt(player("ada"), player("bea"), rated=False))
    assert (left.end_reason, left.winner) == ("abandoned", None)


def test_an_unrated_match_changes_no_rating() -> None:
    state = dealt(player("ada"), player("bea"), rated=False)
    resigned, _ = resign(state, 0)
    assert new_ratings(resigned, {}) == {}


def test_the_ai_plays_at_its_fixed_rating_and_is_not_rated() -> None:
    state = dealt(player("ada"), Seat("ai", "expert"))
    won, _ = resign(state, 1)
    ratings = new_ratings(won, {})
    assert list(ratings) == ["ada"]
    assert ratings["ada"] == rate(Rating(), [Result(AI_RATINGS["expert"], 1.0)])


def test_with_four_each_player_meets_the_other_team_as_one() -> None:
    state = dealt(player("ada"), player("bea"), player("cy"), Seat("ai", "easy"))
    current = {"ada": Rating(1600, 80), "bea": Rating(1400, 200), "cy": Rating(1500, 120)}
    won, _ = resign(state, 1)  # team 1 (bea and the AI) resigns
    ratings = new_ratings(won, current)
    easy = AI_RATINGS["easy"]
    rivals_of_team_0 = Rating((1400 + easy.rating) / 2, math.sqrt((200**2 + easy.deviation**2) / 2))
    rivals_of_team_1 = Rating(1550, math.sqrt((80**2 + 120**2) / 2))
    assert ratings["ada"] == rate(current["ada"], [Result(rivals_of_team_0, 1.0)])
    assert ratings["cy"] == rate(current["cy"], [Result(rivals_of_team_0, 1.0)])
    assert ratings["bea"] == rate(current["bea"], [Result(rivals_of_team_1, 0.0)])


def test_the_worked_example_of_the_docs_is_the_papers() -> None:
    """docs/api.md states Glickman's example; its figures are what ``rate`` computes."""
    text = " ".join(API_MD.read_text().split())
    found = re.search(
        r"a player at (\d+), deviation (\d+), volatility ([\d.]+), who in one period beats a "
        r"(\d+) \(deviation (\d+)\) and loses to a (\d+) \((\d+)\) and a (\d+) \((\d+)\), ends "
        r"at rating ([\d.]+), deviation ([\d.]+), volatility (\d+\.\d+)",
        text,
    )
    assert found is not None
    r, rd, vol, w, wd, l1, l1d, l2, l2d, r_after, rd_after, vol_after = map(float, found.groups())
    after = rate(
        Rating(r, rd, vol),
        [Result(Rating(w, wd), 1.0), Result(Rating(l1, l1d), 0.0), Result(Rating(l2, l2d), 0.0)],
    )
    assert after.rating == pytest.approx(r_after, abs=0.005)
    assert after.deviation == pytest.approx(rd_after, abs=0.005)
    assert after.volatility == pytest.approx(vol_after, abs=0.000005)
