"""Scopone: its rules options, its deal, and random matches checked move by move and deal
by deal against the independent model of the published rules (``scopone_reference``)."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa.domain.cards import NAME, names, parse_cards
from scopa.domain.errors import InvalidSetup
from scopa.domain.events import CardPlayed, DealScored, DealStarted, StoredEvent
from scopa.domain.match import (
    Seat,
    human_has_played,
    is_sweep,
    legal_moves,
    new_match,
    play,
    replay,
)
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules, setup_problems
from tests.unit import scopone_reference as book
from tests.unit.build import RuleOptions, humans

SCOPONE = make_rules(deal="scopone", players=4)


def test_scopone_is_refused_with_two_players_and_with_six_card_hands() -> None:
    with pytest.raises(InvalidSetup) as refused:
        make_rules(deal="scopone", hand_size=6, players=2)
    assert refused.value.problems == [
        ("rules.hand_size", "scopone deals ten cards a seat at once: not with 6"),
        ("rules.deal", "scopone is for 4 players, not 2"),
    ]
    odd = msgspec.structs.replace(SCOPONE, deal="tresette")
    assert setup_problems(odd, 4) == [("rules.deal", "must be one of scopa, scopone")]


def test_rules_stored_before_the_deal_option_read_as_scopa() -> None:
    old = msgspec.msgpack.encode({"target": 11, "hand_size": 3})
    assert msgspec.msgpack.decode(old, type=Rules).deal == "scopa"


@pytest.mark.parametrize("dealer", range(4))
def test_the_whole_deck_is_dealt_ten_a_seat_and_the_dealers_right_hand_leads(
    dealer: int,
) -> None:
    deck = list(range(40))
    random.Random(dealer).shuffle(deck)
    state, events = new_match(SCOPONE, humans(4), 1, [deck], dealer)
    # One card at a time from the seat after the dealer, who is also the first to play.
    first = (dealer + 1) % 4
    for seat in range(4):
        assert list(state.hands[seat]) == deck[(seat - first) % 4 :: 4]
    assert (state.table, state.stock, state.turn) == ((), (), first)
    started = events[-1]
    assert isinstance(started, DealStarted)
    assert (started.table, started.dealer) == ((), dealer)
    # Nothing is on the table, so the first card can take nothing and sweep nothing.
    assert all(not m.capture for m in legal_moves(state))
    assert {m.card for m in legal_moves(state)} == set(state.hands[first])


def test_a_deal_of_four_kings_on_no_table_is_not_void() -> None:
    kings = parse_cards(["KC", "KD", "KH", "KS"])
    rest = [c for c in range(40) if c not in kings]
    state, events = new_match(SCOPONE, humans(4), 1, [kings + rest], 0)
    assert [type(e).__name__ for e in events] == ["DealStarted"]
    assert state.deal == 1


def test_a_human_seat_has_played_once_it_plays_its_first_of_ten_cards() -> None:
    seats = [Seat("human"), Seat("ai", "easy"), Seat("ai", "easy"), Seat("ai", "easy")]
    state, _ = new_match(SCOPONE, seats, 3, first_dealer=3)
    assert state.turn == 0
    assert not human_has_played(state)
    state, _ = play(state, 0, legal_moves(state)[0])
    assert human_has_played(state)


def check_against_the_book(rules: Rules, seed: int, choices: random.Random) -> int:
    """A random match played on the engine and on the book's model side by side; returns
    how many deals it had."""
    state, events = new_match(rules, humans(4), seed)
    log: list[StoredEvent] = list(events)
    hand: book.Hand | None = None
    deals = 0
    totals = [0, 0]
    while True:
        for event in events:
            if isinstance(event, DealStarted):
                deck = [book.from_name(c) for c in event.deck]
                hand = book.Hand(deck, event.dealer, rules.ace_sweeps, last_scopa=False)
                assert [[book.to_name(c) for c in h] for h in hand.hands] == [
                    list(h) for h in event.hands
                ]
                assert event.table == ()
            elif isinstance(event, DealScored):
                assert hand is not None
                assert hand.over()
                hand.sweep_up()
                expected = book.points(hand.taken, hand.scope, rules.diamond_sequence)
                assert [t.total for t in event.teams] == expected
                assert sum(len(p) for p in hand.taken) == 40
                totals = [totals[i] + expected[i] for i in (0, 1)]
                assert list(event.scores) == totals
                deals += 1
        if state.status == "finished":
            break
        assert hand is not None
        assert state.turn == hand.player
        moves = legal_moves(state)
        engine = {(NAME[m.card], frozenset(names(m.capture)), is_sweep(state, m)) for m in moves}
        model = {
            (book.to_name(c), frozenset(book.to_name(t) for t in taken), sweep)
            for c, taken, sweep in hand.choices()
        }
        assert engine == model
        assert not state.stock
        move = moves[choices.randrange(len(moves))]
        hand.play(
            book.from_name(NAME[move.card]),
            frozenset(book.from_name(n) for n in names(move.capture)),
        )
        state, events = play(state, state.turn, move)
        log += events
        played = events[0]
        assert isinstance(played, CardPlayed)
    high = max(totals)
    assert state.winner == totals.index(high)
    assert high >= rules.target
    assert replay(new_match(rules, humans(4), seed)[0], log) == state
    return deals


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"diamond_sequence": True, "target": 16},
        {"ace_sweeps": "sweep"},
        {"ace_sweeps": "no_point", "diamond_sequence": True},
    ],
    ids=["plain", "napola-16", "scopa-d-assi", "aces-no-point-napola"],
)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), choice_seed=st.integers(0, 2**32))
def test_random_scopone_matches_agree_with_the_published_rules(
    options: RuleOptions, seed: int, choice_seed: int
) -> None:
    rules = make_rules(deal="scopone", players=4, **options)
    assert check_against_the_book(rules, seed, random.Random(choice_seed)) >= 1


def test_the_last_card_of_a_scopone_deal_never_sweeps() -> None:
    """The dealer's last card clears the table: no scopa. One card earlier it would be."""
    state, _ = new_match(SCOPONE, humans(4), 1, first_dealer=3)
    ks, kc, ah = parse_cards(["KS", "KC", "AH"])
    last = msgspec.structs.replace(state, hands=((), (), (), (ks,)), table=(kc,), turn=3)
    assert legal_moves(last) == [Move(ks, (kc,))]
    assert not is_sweep(last, Move(ks, (kc,)))
    earlier = msgspec.structs.replace(last, hands=((ah,), (), (), (ks,)))
    assert is_sweep(earlier, Move(ks, (kc,)))
