"""Dealing (docs/rules.md, "Dealing"): order, packets, redeals, dealers, leads."""

from __future__ import annotations

import pytest

from scopa.domain.cards import NAME, names
from scopa.domain.events import CardPlayed, CardsDealt, DealStarted, Redeal, StoredEvent
from scopa.domain.match import new_match
from scopa.domain.rules import make_rules
from tests.unit import reference
from tests.unit.build import cards, deck_for, humans, play_through

ORDERED = list(range(40))  # AC 2C .. KC AD .. KS: card i is the i-th from the top


def started(events: list[StoredEvent]) -> list[DealStarted]:
    return [e for e in events if isinstance(e, DealStarted)]


@pytest.mark.parametrize(
    ("players", "hand_size", "dealer", "hands"),
    [
        (2, 3, 0, [[1, 3, 5], [0, 2, 4]]),
        (2, 3, 1, [[0, 2, 4], [1, 3, 5]]),
        (2, 6, 1, [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11]]),
        (4, 3, 2, [[1, 5, 9], [2, 6, 10], [3, 7, 11], [0, 4, 8]]),
        (4, 3, 3, [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]),
    ],
)
def test_one_card_at_a_time_from_the_top_starting_after_the_dealer(
    players: int, hand_size: int, dealer: int, hands: list[list[int]]
) -> None:
    rules = make_rules(players=players, hand_size=hand_size)
    state, events = new_match(rules, humans(players), 5, [ORDERED], dealer)
    dealt = players * hand_size
    assert [list(h) for h in state.hands] == hands
    assert list(state.table) == ORDERED[dealt : dealt + 4]
    assert list(state.stock) == ORDERED[dealt + 4 :]
    (event,) = started(events)
    assert event.dealer == dealer
    assert [list(h) for h in event.hands] == [names(h) for h in hands]
    assert state.turn == (dealer + 1) % players


@pytest.mark.parametrize(
    ("players", "hand_size", "packets"), [(2, 3, 6), (4, 3, 3), (2, 6, 3)], ids=str
)
def test_packets_are_dealt_the_same_way_when_every_hand_is_empty(
    players: int, hand_size: int, packets: int
) -> None:
    rules = make_rules(players=players, hand_size=hand_size)
    dealer = players - 1
    state, events = new_match(rules, humans(players), 5, [ORDERED], dealer)
    state, more = play_through(state, until_deal=2)
    events += more
    deal_one = events[: events.index(started(events)[1])]
    dealt = [e for e in deal_one if isinstance(e, CardsDealt)]
    assert len(dealt) == packets - 1
    size = players * hand_size
    for k, event in enumerate(dealt, start=1):
        top = size * k + 4  # after the first packet, the 4 table cards, k-1 more packets
        expected = [
            [ORDERED[top + j] for j in range(seat, size, players)] for seat in range(players)
        ]
        assert [cards(" ".join(h)) for h in event.hands] == expected
        assert event.deck_count == 36 - size * (k + 1)
    # Each packet is led by the seat after the dealer: the play right after the deal.
    for k, dealing in enumerate(deal_one):
        if isinstance(dealing, DealStarted | CardsDealt):
            following = deal_one[k + 1]
            assert isinstance(following, CardPlayed)
            assert following.seat == 0


@pytest.mark.parametrize("players", [2, 4])
def test_the_deal_passes_to_the_next_seat_and_the_seat_after_the_dealer_leads(
    players: int,
) -> None:
    rules = make_rules(players=players, target=100)
    state, events = new_match(rules, humans(players), 11, first_dealer=1)
    state, more = play_through(state, until_deal=6)
    events += more
    deals = started(events)
    assert [d.dealer for d in deals] == [(1 + k) % players for k in range(6)]
    for deal in deals[:5]:
        lead = events[events.index(deal) + 1]
        assert isinstance(lead, CardPlayed)
        assert lead.seat == (deal.dealer + 1) % players


def test_the_first_dealer_is_drawn_from_the_generator_unless_named() -> None:
    drawn = set()
    for seed in range(12):
        state, _ = new_match(make_rules(), humans(2), seed)
        assert state.dealer == reference.SplitMix64(seed).below(2)
        drawn.add(state.dealer)
    assert drawn == {0, 1}
    state, _ = new_match(make_rules(players=4), humans(4), 3, first_dealer=2)
    assert state.dealer == 2


def void_deck(kings: str) -> list[int]:
    return deck_for(["2C 3C 4C", "5C 6C 7C"], kings, dealer=1)


@pytest.mark.parametrize("table", ["KC KD KH 2D", "KC 2D KH KD", "KC KD KH KS"])
def test_three_or_four_kings_on_the_table_void_the_deal(table: str) -> None:
    seed = 42
    deck = void_deck(table)
    second = deck_for(["AH 2H 3H", "4H 5H 6H"], "7H JH QH AS", dealer=0)
    state, events = new_match(make_rules(target=40), humans(2), seed, [deck, second], 1)
    redeal = events[0]
    assert isinstance(redeal, Redeal)
    assert (redeal.seq, redeal.deal, list(redeal.table)) == (1, 1, table.split())
    # The same deck, reshuffled from the match's generator (a named dealer draws nothing).
    rng = reference.SplitMix64(seed)
    again = names(deck)
    rng.shuffle(again)
    expected = reference.Deal(make_rules(), 2, 1, again)
    assert not expected.void()
    (deal,) = started(events)
    assert (deal.seq, deal.deal, deal.dealer) == (2, 1, 1)
    assert [list(h) for h in deal.hands] == expected.hands
    assert list(deal.table) == expected.table
    # The void deal used up the first explicit deck: deal 2 deals the second as it is.
    state, more = play_through(state, until_deal=2)
    (deal_two,) = started(more)
    assert deal_two.dealer == 0
    assert [list(h) for h in deal_two.hands] == [["AH", "2H", "3H"], ["4H", "5H", "6H"]]
    assert list(deal_two.table) == ["7H", "JH", "QH", "AS"]
    assert not [e for e in more if isinstance(e, Redeal)]


def test_a_reshuffle_that_shows_three_kings_again_is_voided_again() -> None:
    seed = 79343  # found by search: this seed's first two reshuffles of the deck are void too
    deck = void_deck("KC KD KH 2D")
    rng = reference.SplitMix64(seed)
    order = names(deck)
    tables = []
    while reference.Deal(make_rules(), 2, 1, order).void():
        tables.append(reference.Deal(make_rules(), 2, 1, order).table)
        rng.shuffle(order)
    assert len(tables) == 3
    state, events = new_match(make_rules(), humans(2), seed, [deck], 1)
    redeals = [e for e in events if isinstance(e, Redeal)]
    assert [list(e.table) for e in redeals] == tables
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert list(names(state.table)) == reference.Deal(make_rules(), 2, 1, order).table
    assert state.dealer == 1


@pytest.mark.parametrize("table", ["KC KD 2D 3D", "2D 3D 4D 5D"])
def test_fewer_than_three_kings_deal_normally(table: str) -> None:
    deck = deck_for(["KH 3C 4C", "KS 6C 7C"], table, dealer=1)
    state, events = new_match(make_rules(), humans(2), 1, [deck], 1)
    assert [type(e) for e in events] == [DealStarted]
    assert [NAME[c] for c in state.table] == table.split()
