"""Glicko-2 as Glickman's worked example computes it, and what any rating system owes its
players: a win never costs rating, a loss never gains it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scopa.domain.glicko import Rating, Result, rate


def test_the_papers_worked_example() -> None:
    """ "Example of the Glicko-2 system" (Glickman, 2012): a 1500 (RD 200, volatility 0.06)
    player beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300); tau 0.5."""
    player = Rating(1500.0, 200.0, 0.06)
    results = [
        Result(Rating(1400.0, 30.0), 1.0),
        Result(Rating(1550.0, 100.0), 0.0),
        Result(Rating(1700.0, 300.0), 0.0),
    ]
    after = rate(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_makes_the_rating_less_certain() -> None:
    after = rate(Rating(1620.0, 80.0, 0.06), [])
    assert after.rating == 1620.0
    assert after.volatility == 0.06
    assert after.deviation == pytest.approx((80.0**2 + (0.06 * 173.7178) ** 2) ** 0.5)


ratings = st.builds(
    Rating,
    st.floats(800.0, 2400.0),
    st.floats(30.0, 350.0),
    st.floats(0.03, 0.1),
)


@given(ratings, ratings)
def test_a_win_never_lowers_a_rating_nor_a_loss_raises_it(player: Rating, rival: Rating) -> None:
    assert rate(player, [Result(rival, 1.0)]).rating >= player.rating
    assert rate(player, [Result(rival, 0.0)]).rating <= player.rating


@given(ratings)
def test_a_draw_with_an_equal_leaves_the_rating_where_it_was(player: Rating) -> None:
    after = rate(player, [Result(player, 0.5)])
    assert after.rating == pytest.approx(player.rating)
    # A game played makes the rating surer than a period without one would.
    assert after.deviation < rate(player, []).deviation
