"""The "Worked cases" table of docs/rules.md, row by row, on the Deal core and match.play."""

from __future__ import annotations

import pytest

from scopa.domain.cards import NAME
from scopa.domain.deal import Deal
from scopa.domain.events import CardPlayed
from scopa.domain.match import is_sweep, legal_moves, play
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules
from tests.unit.build import cards, match_at, resolve

MATCH = make_rules()
FIFTEEN = make_rules(capture="fifteen")
ACE_SWEEP = make_rules(ace_sweeps="sweep")
ACE_NO_POINT = make_rules(ace_sweeps="no_point")


def open_deal(table: str, hand: str, rules: Rules) -> Deal:
    """Seat 0 to play ``hand`` on ``table``, with cards still in the stock (not a last play)."""
    on_table, mine = cards(table), cards(hand)
    rest = [c for c in range(40) if c not in on_table and c not in mine]
    return Deal(rules, 2, 1, 0, [mine, rest[:3]], on_table, rest[3:], [[], []], [0, 0], None)


def takes(deal: Deal, card: str) -> set[frozenset[str]]:
    return {frozenset(NAME[c] for c in m.capture) for m in deal.options(cards(card)[0])}


def choices(*groups: str) -> set[frozenset[str]]:
    return {frozenset(g.split()) for g in groups}


# (table, played card, rules, what it may take: one string per choice; none: it stays)
WORKED = [
    pytest.param("2C 3D 5H KS", "5C", MATCH, ["5H"], id="single before 2+3"),
    pytest.param("2C 3D 6H KS", "5C", MATCH, ["2C 3D"], id="sum when no single"),
    pytest.param("AC 2D 4H 6S", "7C", MATCH, ["AC 6S", "AC 2D 4H"], id="choice of two sums"),
    pytest.param("AC 2D 4H 6S", "KC", MATCH, ["4H 6S"], id="king takes 4+6"),
    pytest.param("3C 4D", "6H", MATCH, [], id="6 stays on 3,4"),
    pytest.param("AC 3D 4H", "4S", MATCH, ["4H"], id="4 takes the 4 only"),
    pytest.param("6H 2C 4D", "6C", MATCH, ["6H"], id="6 takes the 6H only"),
    pytest.param("2C 3D 6H", "AS", ACE_SWEEP, ["2C 3D 6H"], id="ace takes all, sweep"),
    pytest.param("2C 3D 6H", "AS", ACE_NO_POINT, ["2C 3D 6H"], id="ace takes all, no_point"),
    pytest.param("2C 3D 6H AD", "AS", ACE_SWEEP, ["AD"], id="ace on table, sweep"),
    pytest.param("2C 3D 6H AD", "AS", ACE_NO_POINT, ["AD"], id="ace on table, no_point"),
    pytest.param("QH", "6C", FIFTEEN, ["QH"], id="fifteen 6+Q"),
    pytest.param("5C 4D", "6H", FIFTEEN, ["5C 4D"], id="fifteen 6+5+4"),
]


@pytest.mark.parametrize(("table", "card", "rules", "expected"), WORKED)
def test_worked_case_on_the_deal_core(
    table: str, card: str, rules: Rules, expected: list[str]
) -> None:
    deal = open_deal(table, card, rules)
    assert takes(deal, card) == choices(*expected)
    moves = {(NAME[m.card], frozenset(NAME[c] for c in m.capture)) for m in deal.legal_moves()}
    assert moves == {(card, g) for g in choices(*expected) or {frozenset()}}


@pytest.mark.parametrize(("table", "card", "rules", "expected"), WORKED)
def test_worked_case_through_match_play(
    table: str, card: str, rules: Rules, expected: list[str]
) -> None:
    state, seat = match_at(table, card, rules)
    played = cards(card)[0]
    offered = {
        frozenset(NAME[c] for c in m.capture) for m in legal_moves(state) if m.card == played
    }
    assert offered == (choices(*expected) or {frozenset()})
    for choice in offered:
        after, events = play(state, seat, Move.of(played, cards(" ".join(choice))))
        first = events[0]
        assert isinstance(first, CardPlayed)
        assert (first.card, set(first.capture)) == (card, set(choice))
        if choice:
            assert played in after.piles[seat]
            assert not set(cards(" ".join(choice))) & set(after.table)
        else:
            assert after.table == (*state.table, played)


@pytest.mark.parametrize(
    ("rules", "sweep"), [(ACE_SWEEP, True), (ACE_NO_POINT, False)], ids=["sweep", "no_point"]
)
def test_ace_clearing_the_table_scores_a_sweep_only_under_sweep(rules: Rules, sweep: bool) -> None:
    state, seat = match_at("2C 3D 6H", "AS", rules)
    (move,) = [m for m in legal_moves(state) if m.card == cards("AS")[0]]
    assert is_sweep(state, move) is sweep
    assert resolve(state, seat, move.card, None) == move
    after, events = play(state, seat, move)
    assert isinstance(events[0], CardPlayed)
    assert events[0].sweep is sweep
    assert after.sweeps[seat] == state.sweeps[seat] + sweep
    assert after.table == ()


def test_sweep_flag_on_an_ordinary_sweep() -> None:
    state, seat = match_at("2C 3D", "5C", MATCH)
    (move,) = [m for m in legal_moves(state) if m.card == cards("5C")[0]]
    assert is_sweep(state, move) is True
    after, _ = play(state, seat, resolve(state, seat, move.card, None))
    assert after.sweeps[seat] == state.sweeps[seat] + 1


def test_two_equal_cards_on_the_table_are_two_moves() -> None:
    """Groups are told apart by the cards in them: 2C 2D 3H under a 5 are two moves."""
    deal = open_deal("2C 2D 3H", "5S", MATCH)
    assert takes(deal, "5S") == choices("2C 3H", "2D 3H")
