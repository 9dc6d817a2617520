"""Seats in the domain: names, reserved seats and their claims, rematches, the training
option that shows the AI's cards, and the fairness commitment in the view."""

from __future__ import annotations

import hashlib

import pytest

from scopa.contract.views import match_view
from scopa.domain.cards import names
from scopa.domain.errors import MatchNotActive, SeatNotOpen
from scopa.domain.events import RematchOffered, SeatJoined
from scopa.domain.match import MatchState, Seat, join, new_match, offer_rematch, rematch_of, replay
from scopa.domain.rules import Rules, make_rules
from tests.unit.build import play_through

RULES = make_rules(target=1)


def finished(seats: list[Seat], *, rules: Rules = RULES, seed: int = 3) -> MatchState:
    state, _ = new_match(rules, seats, seed)
    state, _ = play_through(state)
    assert state.status == "finished"
    return state


def test_names_are_public_and_joins_name_their_seat() -> None:
    state, _ = new_match(RULES, [Seat("human", name="Ada"), Seat("open")], 1)
    state, events = join(state, 1, "Bo")
    assert events[0] == SeatJoined(seq=1, seat=1, name="Bo")
    for viewer in (None, 0, 1):
        assert [s.name for s in match_view("m", state, viewer).seats] == ["Ada", "Bo"]


def test_a_reserved_seat_waits_for_its_claim_alone() -> None:
    seats = [Seat("human", name="Ada"), Seat("reserved", name="Bo", claim="hash-of-bo")]
    state, events = new_match(RULES, seats, 1)
    assert (state.status, events) == ("waiting", [])
    for claim in (None, "hash-of-ada", ""):
        with pytest.raises(SeatNotOpen):
            join(state, 1, None, claim)
    with pytest.raises(SeatNotOpen):
        join(state, 0, None, "hash-of-bo")  # a held seat is not open to a claim either
    claimed, events = join(state, 1, None, "hash-of-bo")
    assert claimed.seats[1] == Seat("human", name="Bo")  # the old name kept, the claim gone
    assert [type(e).__name__ for e in events] == ["SeatJoined", "DealStarted"]
    assert claimed.status == "active"
    renamed, _ = join(state, 1, "Bob", "hash-of-bo")
    assert renamed.seats[1].name == "Bob"


def test_the_claim_is_never_shown() -> None:
    seats = [Seat("human"), Seat("reserved", claim="secret-hash")]
    state, _ = new_match(RULES, seats, 1)
    view = match_view("m", state, None)
    assert view.seats[1].kind == "reserved"
    assert "secret-hash" not in repr(view)


def test_a_rematch_keeps_rules_seats_and_names_and_deals_after_the_last_dealer() -> None:
    rules = make_rules(target=1, capture="fifteen", players=4)
    seats = [
        Seat("human", name="Ada"),
        Seat("ai", "easy"),
        Seat("human", name="Cy"),
        Seat("human"),
    ]
    old = finished(seats, rules=rules)
    claims = {0: "h0", 2: "h2", 3: "h3"}
    new, events = rematch_of(old, 2, claims, seed=99, ai_secret=5)
    assert events == []
    assert new.rules == old.rules
    assert new.seats == (
        Seat("reserved", name="Ada", claim="h0"),
        Seat("ai", "easy"),
        Seat("human", name="Cy"),
        Seat("reserved", claim="h3"),
    )
    assert (new.status, new.version, new.seq) == ("waiting", 0, 0)
    assert old.dealer is not None
    assert new.first_dealer == (old.dealer + 1) % 4
    assert (new.seed, new.seeded, new.ai_secret) == (99, False, 5)
    new, _ = join(new, 0, None, "h0")
    new, _ = join(new, 3, None, "h3")
    assert new.status == "active"
    assert new.dealer == new.first_dealer


def test_against_the_ai_a_rematch_is_dealt_at_once() -> None:
    old = finished([Seat("human"), Seat("ai", "hard")])
    new, events = rematch_of(old, 0, {0: "h0"}, seed=1, ai_secret=2)
    assert new.status == "active"
    assert [type(e).__name__ for e in events] == ["DealStarted"]


def test_only_a_finished_match_that_was_dealt_is_offered_again() -> None:
    active, _ = new_match(RULES, [Seat("human")] * 2, 1)
    waiting, _ = new_match(RULES, [Seat("human"), Seat("open")], 1)
    for state in (active, waiting):
        with pytest.raises(MatchNotActive):
            offer_rematch(state, "next")
        with pytest.raises(MatchNotActive):
            rematch_of(state, 0, {0: "a", 1: "b"}, 1, 2)


def test_an_offer_is_a_change_of_the_old_match_and_replays() -> None:
    old, _ = new_match(RULES, [Seat("human"), Seat("open")], 5)
    initial = old
    log = []
    old, events = join(old, 1, "Bo")
    log += events
    old, events = play_through(old)
    log += events
    offered, events = offer_rematch(old, "next-id")
    log += events
    assert events == [RematchOffered(seq=old.seq + 1, match_id="next-id")]
    assert (offered.rematch, offered.version, offered.status) == (
        "next-id",
        old.version + 1,
        "finished",
    )
    assert match_view("m", offered, None).rematch == "next-id"
    assert replay(initial, log) == offered


def test_a_claim_replays_from_the_log() -> None:
    seats = [Seat("human", name="Ada"), Seat("reserved", name="Bo", claim="h1")]
    initial, _ = new_match(RULES, seats, 1)
    state, log = join(initial, 1, None, "h1")
    assert replay(initial, log) == state


def test_fairness_commits_to_the_seed_and_reveals_it_at_the_end() -> None:
    seats = [Seat("human")] * 2
    secret, _ = new_match(RULES, seats, 123456789, seeded=False)
    fairness = match_view("m", secret, None).fairness
    assert fairness is not None
    assert fairness.commitment == hashlib.sha256(b"123456789").hexdigest()
    assert fairness.seed is None
    assert match_view("m", secret, 0).seeded is False
    done, _ = play_through(secret)
    revealed = match_view("m", done, None).fairness
    assert revealed is not None
    assert revealed.seed == 123456789
    given, _ = new_match(RULES, seats, 123456789)  # the creator's seed: it may know the cards
    assert (match_view("m", given, None).seeded, match_view("m", given, None).fairness) == (
        True,
        None,
    )


def test_the_ai_secret_does_not_change_the_deal() -> None:
    seats = [Seat("human")] * 2
    one, _ = new_match(RULES, seats, 77, ai_secret=1, seeded=False)
    two, _ = new_match(RULES, seats, 77, ai_secret=2, seeded=False)
    assert (one.hands, one.table, one.stock, one.rng) == (two.hands, two.table, two.stock, two.rng)


def test_reveal_ai_hands_shows_exactly_the_ai_seats_cards_to_everyone() -> None:
    rules = make_rules(target=1, reveal_ai_hands=True, players=4)
    seats = [Seat("human"), Seat("ai", "easy"), Seat("open"), Seat("ai", "hard")]
    state, _ = new_match(rules, seats, 4)
    assert [s.hand for s in match_view("m", state, None).seats] == [None] * 4  # waiting
    state, _ = join(state, 2)
    for viewer in (None, 0, 2):
        view = match_view("m", state, viewer)
        assert [s.hand for s in view.seats] == [
            None,
            tuple(names(state.hands[1])),
            None,
            tuple(names(state.hands[3])),
        ]
    done, _ = play_through(state)
    assert [s.hand for s in match_view("m", done, None).seats] == [None, (), None, ()]


def test_without_the_option_no_seat_shows_a_hand() -> None:
    state, _ = new_match(RULES, [Seat("human"), Seat("ai", "easy")], 4)
    assert [s.hand for s in match_view("m", state, None).seats] == [None, None]
    assert [s.hand for s in match_view("m", state, 0).seats] == [None, None]
