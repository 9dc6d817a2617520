"""What a seat and a spectator may see (docs/api.md, "The match view" and "Events")."""

from __future__ import annotations

import msgspec

from scopa.contract.events import CardsDealtView, DealStartedView, RedealView, for_viewer
from scopa.contract.rules import rules_view
from scopa.contract.views import match_view
from scopa.domain.cards import names
from scopa.domain.events import (
    CardPlayed,
    CardsDealt,
    DealStarted,
    Redeal,
    SeatJoined,
    StoredEvent,
)
from scopa.domain.match import Seat, is_sweep, join, legal_moves, new_match, play
from scopa.domain.rules import make_rules
from tests.unit.build import match_with, play_through


def test_a_seat_sees_its_own_hand_and_its_moves_only_on_its_turn() -> None:
    state = match_with(["5C 6C 7C", "2D 3C 4C"], "2C 3D KD QS", dealer=1)
    mine = match_view("m1", state, 0)
    assert mine.you == 0
    assert mine.hand == ("5C", "6C", "7C")
    assert [(m.card, m.capture, m.sweep) for m in mine.legal_moves] == [
        ("5C", ("2C", "3D"), False),
        ("6C", (), False),
        ("7C", (), False),
    ]
    theirs = match_view("m1", state, 1)
    assert theirs.hand == ("2D", "3C", "4C")
    assert theirs.legal_moves == ()
    assert [s.hand_count for s in theirs.seats] == [3, 3]


def test_a_spectator_sees_no_hand_and_no_moves() -> None:
    state = match_with(["5C 6C 7C", "2D 3C 4C"], "2C 3D KD QS", dealer=1)
    view = match_view("m1", state, None)
    assert (view.you, view.hand, view.legal_moves) == (None, None, ())
    assert view.table == ("2C", "3D", "KD", "QS")
    text = msgspec.json.encode(view).decode()
    for card in ("5C", "6C", "7C", "2D", "3C", "4C"):
        assert f'"{card}"' not in text


def test_a_view_never_shows_another_seats_cards() -> None:
    state = match_with(
        ["AC 2C 3C", "4C 5C 6C", "7C JC QC", "AH 2H 3H"], "KS QS JS 7S", make_rules(players=4),
        dealer=3,
    )  # fmt: skip
    for seat in range(4):
        text = msgspec.json.encode(match_view("m", state, seat)).decode()
        for other in range(4):
            for card in names(state.hands[other]):
                assert (f'"{card}"' in text) is (other == seat)


def test_a_waiting_match_view() -> None:
    rules = make_rules()
    state, events = new_match(rules, [Seat("human"), Seat("open")], 5)
    assert events == []
    for seat, hand in [(0, ()), (None, None)]:
        view = match_view("w", state, seat)
        assert view.status == "waiting"
        assert (view.version, view.deal, view.dealer, view.turn) == (0, 0, None, None)
        assert (view.deck_count, view.table, view.hand, view.legal_moves) == (40, (), hand, ())
        assert [(t.team, t.captured, t.captured_count, t.sweeps) for t in view.teams] == [
            (0, (), 0, 0),
            (1, (), 0, 0),
        ]
        assert (view.scores, view.deal_scores, view.winner) == ((0, 0), (), None)
        assert [(s.seat, s.team, s.kind, s.level, s.hand_count) for s in view.seats] == [
            (0, 0, "human", None, 0),
            (1, 1, "open", None, 0),
        ]
        assert view.rules == rules_view(rules)


def test_joining_the_last_open_seat_deals() -> None:
    state, _ = new_match(make_rules(), [Seat("open"), Seat("ai", "easy")], 5, first_dealer=0)
    state, events = join(state, 0)
    assert isinstance(events[0], SeatJoined)
    assert (events[0].seq, events[0].seat) == (1, 0)
    assert isinstance(events[1], DealStarted)
    assert events[1].seq == 2
    assert (state.status, state.version, state.turn) == ("active", 1, 1)
    view = match_view("j", state, 1)
    assert [(s.kind, s.level) for s in view.seats] == [("human", None), ("ai", "easy")]
    assert len(view.legal_moves) >= 3


def test_a_finished_match_view() -> None:
    state, _ = new_match(make_rules(target=1), [Seat("human"), Seat("human")], 2)
    state, _ = play_through(state)
    view = match_view("f", state, 0)
    assert view.status == "finished"
    assert (view.turn, view.deck_count, view.table, view.hand, view.legal_moves) == (
        None, 0, (), (), (),
    )  # fmt: skip
    assert view.deal == len(view.deal_scores) >= 1
    assert view.dealer is not None
    assert sum(t.captured_count for t in view.teams) == 40
    assert view.winner == state.winner is not None
    assert view.scores == view.deal_scores[-1].scores


def started_view(
    started: DealStarted, seat: int | None, *, every_hand: bool = False
) -> DealStartedView:
    view = for_viewer(started, seat, every_hand=every_hand)
    assert isinstance(view, DealStartedView)
    return view


def test_events_as_each_viewer_sees_them() -> None:
    state = match_with(["5C 6C 7C", "2D 3C 4C"], "2C 3D KD QS", dealer=1)
    _, events = new_match(state.rules, [Seat("human")] * 2, 0, state.decks, 1)
    (started,) = events
    assert isinstance(started, DealStarted)
    assert for_viewer(started, 0) == DealStartedView(
        seq=1, deal=1, dealer=1, table=("2C", "3D", "KD", "QS"), hand=("5C", "6C", "7C")
    )
    assert started_view(started, 1).hand == ("2D", "3C", "4C")
    assert started_view(started, None).hand is None
    # The stored event keeps the deck it was dealt from; no view of it shows the deck.
    assert started.deck == tuple(names(state.decks[0]))
    assert "deck" not in msgspec.json.decode(msgspec.json.encode(for_viewer(started, 0)))
    dealt = CardsDealt(seq=9, hands=(("AC", "AD", "AH"), ("AS", "2S", "3S")), deck_count=24)
    assert for_viewer(dealt, 1) == CardsDealtView(seq=9, hand=("AS", "2S", "3S"), deck_count=24)
    assert for_viewer(dealt, None) == CardsDealtView(seq=9, hand=None, deck_count=24)
    # The record shows every seat's packet, and nobody's as its own.
    assert for_viewer(dealt, None, every_hand=True) == CardsDealtView(
        seq=9, hand=None, deck_count=24, hands=dealt.hands
    )
    assert started_view(started, None, every_hand=True).hands == started.hands
    redeal = Redeal(seq=1, deal=1, table=("KC", "KD", "KH", "2C"), deck=tuple(names(range(40))))
    assert (
        for_viewer(redeal, 0)
        == for_viewer(redeal, None, every_hand=True)
        == RedealView(seq=1, deal=1, table=("KC", "KD", "KH", "2C"))
    )
    public: list[StoredEvent] = [
        CardPlayed(seq=2, seat=0, card="5C", capture=("2C", "3D"), sweep=False),
        SeatJoined(seq=3, seat=1),
    ]
    for event in public:
        # Everyone sees them as they are stored.
        stored = msgspec.json.encode(event)
        assert msgspec.json.encode(for_viewer(event, 0)) == stored
        assert msgspec.json.encode(for_viewer(event, None)) == stored


def test_view_moves_match_legal_moves_and_wire_tags() -> None:
    state, _ = new_match(make_rules(), [Seat("human")] * 2, 4)
    assert state.turn is not None
    view = match_view("x", state, state.turn)
    assert [(m.card, set(m.capture), m.sweep) for m in view.legal_moves] == [
        (names([m.card])[0], set(names(m.capture)), is_sweep(state, m)) for m in legal_moves(state)
    ]
    state, events = play(state, state.turn, legal_moves(state)[0])
    wire = msgspec.json.decode(msgspec.json.encode(events[0]))
    assert wire["type"] == "card_played"
    assert set(wire) == {"type", "seq", "seat", "card", "capture", "sweep", "auto"}
    assert wire["auto"] is False
