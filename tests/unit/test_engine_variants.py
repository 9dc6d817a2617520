"""The variants' fine print: aces under ace_sweeps, capture fifteen, the last play."""

from __future__ import annotations

import pytest

from scopa.domain.cards import NAME
from scopa.domain.deal import Deal
from scopa.domain.errors import IllegalMove
from scopa.domain.events import CardPlayed
from scopa.domain.match import MatchState, is_sweep, legal_moves, new_match, play
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules
from tests.unit.build import cards, humans, match_at, resolve

OFF = make_rules()
SWEEP = make_rules(ace_sweeps="sweep")
NO_POINT = make_rules(ace_sweeps="no_point")
FIFTEEN = make_rules(capture="fifteen")


def moves_of(state: MatchState, card: str) -> list[tuple[list[str], bool]]:
    played = cards(card)[0]
    return [
        (sorted(NAME[c] for c in m.capture), is_sweep(state, m))
        for m in legal_moves(state)
        if m.card == played
    ]


def test_without_ace_sweeps_an_ace_is_an_ordinary_one() -> None:
    state, _ = match_at("2C 3D 6H", "AS", OFF)
    assert moves_of(state, "AS") == [([], False)]


@pytest.mark.parametrize("rules", [SWEEP, NO_POINT], ids=["sweep", "no_point"])
def test_an_ace_on_an_empty_table_stays(rules: Rules) -> None:
    state, seat = match_at("", "AS", rules)
    assert moves_of(state, "AS") == [([], False)]
    after, _ = play(state, seat, Move.parse("AS:"))
    assert after.table == tuple(cards("AS"))


@pytest.mark.parametrize(
    ("rules", "sweep"), [(OFF, True), (SWEEP, True), (NO_POINT, False)], ids=["off", "sweep", "np"]
)
def test_an_ace_taking_a_lone_ace(rules: Rules, sweep: bool) -> None:
    """The ordinary match rule; under no_point not even this capture by an ace scores."""
    state, seat = match_at("AD", "AS", rules)
    assert moves_of(state, "AS") == [(["AD"], sweep)]
    after, events = play(state, seat, Move.parse("AS:AD"))
    assert isinstance(events[0], CardPlayed)
    assert events[0].sweep is sweep
    assert after.sweeps[seat] - state.sweeps[seat] == sweep


@pytest.mark.parametrize("rules", [SWEEP, NO_POINT], ids=["sweep", "no_point"])
def test_with_aces_on_the_table_an_ace_takes_one_of_them(rules: Rules) -> None:
    state, _ = match_at("AD 5C AH", "AS", rules)
    assert moves_of(state, "AS") == [(["AD"], False), (["AH"], False)]


def test_no_point_still_lets_other_cards_sweep() -> None:
    state, _ = match_at("2C 3D", "5C", NO_POINT)
    assert moves_of(state, "5C") == [(["2C", "3D"], True)]


def last_play(table: str, card: str, rules: Rules) -> Deal:
    """Seat 1 holds the deal's last card; the deck is out and seat 0 has played."""
    on_table, mine = cards(table), cards(card)
    rest = [c for c in range(40) if c not in on_table and c not in mine]
    return Deal(rules, 2, 1, 1, [[], mine], on_table, [], [rest[:20], rest[20:]], [0, 0], 0)


@pytest.mark.parametrize(
    ("table", "card", "rules"),
    [("2C 3D", "5C", OFF), ("2C 3D 6H", "AS", SWEEP), ("QC", "6C", FIFTEEN), ("AD", "AS", OFF)],
    ids=["sum", "ace", "fifteen", "lone ace"],
)
def test_clearing_the_table_on_the_last_play_is_no_sweep(
    table: str, card: str, rules: Rules
) -> None:
    deal = last_play(table, card, rules)
    (move,) = deal.options(cards(card)[0])
    assert len(move.capture) == len(deal.table)
    assert deal.is_last_play()
    assert not deal.is_sweep(move)
    taken, sweep = deal.play(move)
    assert (sorted(taken), sweep) == (sorted(cards(table)), False)
    assert deal.sweeps == [0, 0]
    assert deal.is_over()
    assert deal.take_leftovers() == (1, [])


def test_the_same_capture_one_play_earlier_is_a_sweep() -> None:
    deal = last_play("2C 3D", "5C", OFF)
    deal.stock = cards("4H 4S")
    assert deal.options(cards("5C")[0]) == [Move.parse("5C:2C+3D")]
    assert not deal.is_last_play()
    assert deal.play(Move.parse("5C:2C+3D")) == (cards("2C 3D"), True)
    assert deal.sweeps == [0, 1]


def greedy(state: MatchState) -> Move:
    """The move taking most cards, the first such in legal_moves order."""
    return max(legal_moves(state), key=lambda m: len(m.capture))


# Not fifteen: there every capture takes a multiple of 15 and the deck's values add up to
# 220, so a fifteen deal can never end on an empty table.
@pytest.mark.parametrize("rules", [OFF, SWEEP], ids=["off", "sweep"])
def test_a_match_never_flags_a_sweep_on_a_deals_last_play(rules: Rules) -> None:
    """Play greedy deals until the last play of one clears the table, then look at it."""
    for seed in range(300):
        state, _ = new_match(rules, humans(2), seed)
        while sum(map(len, state.hands)) + len(state.stock) > 1:
            assert state.turn is not None
            state, _ = play(state, state.turn, greedy(state))
        clearing = [m for m in legal_moves(state) if len(m.capture) == len(state.table) > 0]
        if clearing:
            break
    else:
        pytest.fail("no deal ended with a play that clears the table")
    assert [is_sweep(state, m) for m in clearing] == [False] * len(clearing)
    seat = state.turn
    assert seat is not None
    after, events = play(state, seat, clearing[0])
    (played,) = [e for e in events if isinstance(e, CardPlayed)]
    assert played.sweep is False
    assert after.deal_scores[0].teams[seat].sweeps == state.sweeps[seat]


def test_fifteen_has_no_single_match_priority() -> None:
    state, _ = match_at("7C 3D 4H JS", "JC", FIFTEEN)
    # J (8): 8 + 7 = 15 and 8 + 3 + 4 = 15; the J on the table is no priority match.
    assert moves_of(state, "JC") == [(["3D", "4H"], False), (["7C"], False)]


def test_fifteen_groups_of_any_size_and_sweeps() -> None:
    state, _ = match_at("AC 2D 3H 4S", "5C", FIFTEEN)
    assert moves_of(state, "5C") == [(["2D", "3H", "4S", "AC"], True)]
    state, _ = match_at("5C 4D", "6H", FIFTEEN)
    assert moves_of(state, "6H") == [(["4D", "5C"], True)]


def test_fifteen_taking_is_still_compulsory() -> None:
    state, seat = match_at("QH 2C", "6C", FIFTEEN)
    with pytest.raises(IllegalMove, match="compulsory"):
        play(state, seat, Move.parse("6C:"))
    after, _ = play(state, seat, resolve(state, seat, cards("6C")[0], None))
    assert after.table == tuple(cards("2C"))


def test_fifteen_a_card_that_makes_no_fifteen_stays() -> None:
    state, _ = match_at("QH 2C", "KC", FIFTEEN)
    assert moves_of(state, "KC") == [([], False)]
