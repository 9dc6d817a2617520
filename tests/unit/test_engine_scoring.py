"""Scoring a deal (docs/rules.md, "Scoring a deal"): every point, every tie, both options."""

from __future__ import annotations

import pytest

from scopa.domain.cards import NAME, parse_card
from scopa.domain.rules import Rules, make_rules
from scopa.domain.scoring import (
    DealScore,
    Points,
    deal_points,
    primiera,
    score_deal,
)
from tests.unit.build import cards

PLAIN = make_rules()
BOTH = make_rules(king_of_diamonds=True, diamond_sequence=True)

SUIT_RUN = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]


def suit(s: str, ranks: str = "A234567JQK") -> str:
    return " ".join(r + s for r in ranks)


def split(team0: str, team1: str | None = None) -> list[list[int]]:
    """Two piles: ``team0``, and ``team1`` or else every other card."""
    mine = cards(team0)
    theirs = cards(team1) if team1 is not None else [c for c in range(40) if c not in mine]
    assert not set(mine) & set(theirs)
    return [mine, theirs]


def score(
    piles: list[list[int]],
    rules: Rules = PLAIN,
    sweeps: tuple[int, int] = (0, 0),
    before: tuple[int, int] = (0, 0),
) -> DealScore:
    return score_deal(rules, 1, piles, sweeps, before)


# Team 0: all clubs, AD..7D, 7H, 6S, 5S (20 cards); team 1 the other 20.
FULL = split(f"{suit('C')} {suit('D', 'A234567')} 7H 6S 5S")


def test_a_whole_breakdown_with_both_options() -> None:
    result = score(FULL, BOTH, sweeps=(2, 1), before=(3, 4))
    zero, one = result.teams
    assert (zero.cards, zero.diamonds, zero.settebello, zero.primiera) == (20, 7, True, 81)
    assert (zero.sweeps, zero.king_of_diamonds, zero.diamond_sequence) == (2, False, 7)
    assert zero.points == Points(
        sweeps=2, cards=0, diamonds=1, settebello=1, primiera=1, king_of_diamonds=0,
        diamond_sequence=7,
    )  # fmt: skip
    assert zero.total == 12
    assert (one.cards, one.diamonds, one.settebello, one.primiera) == (20, 3, False, None)
    assert (one.king_of_diamonds, one.diamond_sequence) == (True, 0)
    assert one.points == Points(
        sweeps=1, cards=0, diamonds=0, settebello=0, primiera=0, king_of_diamonds=1,
        diamond_sequence=0,
    )  # fmt: skip
    assert one.total == 2
    assert result.scores == (15, 6)
    assert (result.deal, [t.team for t in result.teams]) == (1, [0, 1])


def test_options_off_report_the_facts_but_score_nothing_for_them() -> None:
    result = score(FULL, PLAIN, sweeps=(2, 1), before=(3, 4))
    zero, one = result.teams
    assert (zero.diamond_sequence, one.king_of_diamonds) == (7, True)
    assert (zero.points.diamond_sequence, one.points.king_of_diamonds) == (0, 0)
    assert (zero.total, one.total) == (5, 1)
    assert result.scores == (8, 5)


@pytest.mark.parametrize(
    ("taken", "expected"),
    [(20, (0, 0)), (21, (1, 0)), (19, (0, 1)), (40, (1, 0)), (0, (0, 1))],
    ids=lambda x: str(x),
)
def test_cards_need_21_and_20_20_is_nobodys(taken: int, expected: tuple[int, int]) -> None:
    # Clubs, hearts, spades first, so the diamonds stay 5-5 or lopsided without a tie rule.
    order = [c for c in range(40) if NAME[c][1] != "D"] + [
        c for c in range(40) if NAME[c][1] == "D"
    ]
    piles = [order[:taken], order[taken:]]
    assert tuple(t.points.cards for t in score(piles).teams) == expected


@pytest.mark.parametrize(
    ("team0", "team1", "expected"),
    [(21, 17, (1, 0)), (20, 18, (0, 0)), (19, 21, (0, 1)), (20, 19, (0, 0))],
    ids=str,
)
def test_with_leftovers_to_nobody_it_is_still_21_or_more(
    team0: int, team1: int, expected: tuple[int, int]
) -> None:
    piles = [list(range(team0)), list(range(team0, team0 + team1))]
    assert tuple(t.points.cards for t in score(piles).teams) == expected


@pytest.mark.parametrize(
    ("diamonds", "expected"), [(5, (0, 0)), (6, (1, 0)), (4, (0, 1)), (10, (1, 0))], ids=str
)
def test_diamonds_need_6_and_5_5_is_nobodys(diamonds: int, expected: tuple[int, int]) -> None:
    piles = split(suit("D", "A234567JQK"[:diamonds]))
    result = score(piles).teams
    assert (result[0].diamonds, result[1].diamonds) == (diamonds, 10 - diamonds)
    assert tuple(t.points.diamonds for t in result) == expected


@pytest.mark.parametrize("holder", [0, 1])
def test_settebello_is_a_point_for_its_holder(holder: int) -> None:
    piles = split("7D AC") if holder == 0 else split("AC")
    result = score(piles).teams
    assert [t.settebello for t in result] == [holder == 0, holder == 1]
    assert [t.points.settebello for t in result] == [int(holder == 0), int(holder == 1)]


def test_primiera_worked_values() -> None:
    assert primiera(cards("7C 7D 7H 7S")) == 84
    assert primiera(cards("7C 7D 7H 6S")) == 81
    assert primiera(cards("KC QD JH 2S")) == 10 + 10 + 10 + 12
    assert primiera(cards(f"{suit('C')} AD 5H 4S")) == 21 + 16 + 15 + 14
    assert primiera(cards("7C 7D 7H")) is None
    assert primiera([]) is None


def test_primiera_higher_total_wins() -> None:
    piles = split("7C 7D 7H 7S")  # 84 against 6C 6D 6H 6S = 72
    result = score(piles).teams
    assert (result[0].primiera, result[1].primiera) == (84, 72)
    assert [t.points.primiera for t in result] == [1, 0]


def test_primiera_equal_totals_is_nobodys() -> None:
    piles = split(f"7C 7D 6H 6S {suit('C', 'JQK')} {suit('D', 'JQK')}")
    result = score(piles).teams
    assert (result[0].primiera, result[1].primiera) == (78, 78)
    assert [t.points.primiera for t in result] == [0, 0]


def test_a_team_without_all_four_suits_cannot_win_primiera() -> None:
    # Team 0: A..7 of clubs, diamonds, hearts (63 in three suits) and no spade.
    # Team 1: their courts and every spade: 10 + 10 + 10 + 21 = 51, and the point.
    piles = split(" ".join(suit(s, "A234567") for s in "CDH"))
    result = score(piles).teams
    assert result[0].primiera is None
    assert result[1].primiera == 51
    assert [t.points.primiera for t in result] == [0, 1]


def test_neither_team_with_all_four_suits_means_no_primiera_point() -> None:
    piles = split(f"{suit('C')} {suit('D')}")
    result = score(piles).teams
    assert [t.primiera for t in result] == [None, None]
    assert [t.points.primiera for t in result] == [0, 0]


@pytest.mark.parametrize("sweeps", [(0, 0), (3, 0), (1, 4)], ids=str)
def test_each_sweep_is_a_point(sweeps: tuple[int, int]) -> None:
    result = score(FULL, sweeps=sweeps).teams
    assert [t.sweeps for t in result] == list(sweeps)
    assert [t.points.sweeps for t in result] == list(sweeps)
    assert [t.total for t in result] == [3 + sweeps[0], sweeps[1]]


@pytest.mark.parametrize("holder", [0, 1])
def test_king_of_diamonds_scores_only_when_the_option_is_on(holder: int) -> None:
    piles = split("KD") if holder == 0 else split("KC")
    on = score(piles, make_rules(king_of_diamonds=True)).teams
    off = score(piles).teams
    assert [t.king_of_diamonds for t in on] == [holder == 0, holder == 1]
    assert [t.king_of_diamonds for t in off] == [holder == 0, holder == 1]
    assert [t.points.king_of_diamonds for t in on] == [int(holder == 0), int(holder == 1)]
    assert [t.points.king_of_diamonds for t in off] == [0, 0]


@pytest.mark.parametrize(
    ("held", "length"),
    [
        ("", 0),
        ("AD 2D", 0),
        ("AD 2D 4D 5D 6D 7D JD QD KD", 0),
        ("2D 3D 4D 5D 6D 7D JD QD KD", 0),
        ("AD 2D 3D", 3),
        ("AD 2D 3D 5D 6D", 3),
        ("AD 2D 3D 4D", 4),
        ("AD 2D 3D 4D 5D", 5),
        ("AD 2D 3D 4D 5D 6D", 6),
        ("AD 2D 3D 4D 5D 6D 7D", 7),
        ("AD 2D 3D 4D 5D 6D 7D JD KD", 8),
        ("AD 2D 3D 4D 5D 6D 7D JD QD", 9),
        ("AD 2D 3D 4D 5D 6D 7D JD QD KD", 10),
    ],
)
def test_diamond_sequence_lengths(held: str, length: int) -> None:
    pile = cards(f"{held} AC".strip())
    piles = [pile, [c for c in range(40) if c not in pile]]
    on = score(piles, make_rules(diamond_sequence=True)).teams[0]
    off = score(piles).teams[0]
    assert on.diamond_sequence == off.diamond_sequence == length
    assert (on.points.diamond_sequence, off.points.diamond_sequence) == (length, 0)


def test_the_other_team_can_hold_a_sequence_too() -> None:
    piles = split("AD 2D 3D 4D 7D", "KC")
    result = score(piles, make_rules(diamond_sequence=True)).teams
    assert [t.points.diamond_sequence for t in result] == [4, 0]


@pytest.mark.parametrize("rules", [PLAIN, BOTH, make_rules(king_of_diamonds=True)], ids=str)
def test_deal_points_are_the_totals_of_the_breakdown(rules: Rules) -> None:
    for piles, sweeps in [
        (FULL, (2, 1)),
        (split("7C 7D 7H 7S KD AD 2D 3D"), (0, 5)),
        (split(""), (0, 0)),
        ([list(range(21)), list(range(21, 38))], (1, 0)),
    ]:
        result = score(piles, rules, sweeps)
        assert deal_points(rules, piles, sweeps) == tuple(t.total for t in result.teams)
        for team in result.teams:
            assert team.total == sum(point_values(team.points))


def point_values(points: Points) -> list[int]:
    return [getattr(points, f) for f in points.__struct_fields__]


def test_card_parsing_is_what_these_tests_assume() -> None:
    assert [parse_card(c) for c in ("AC", "KC", "AD", "7D", "KS")] == [0, 9, 10, 16, 39]
    assert [NAME[c][0:-1] for c in range(10)] == SUIT_RUN
