"""The coach reviews a seat's plays with what that seat knew, and nothing else."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec
import pytest

from scopa.domain.ai import decide
from scopa.domain.ai import review as coach
from scopa.domain.ai.knowledge import Knowledge, knowledge_of
from scopa.domain.ai.review import Review, information_seed, judge, review
from scopa.domain.ai.search import world
from scopa.domain.cards import DECK, NAME, parse_card, parse_cards
from scopa.domain.events import CardPlayed, DealStarted, StoredEvent
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules, make_rules

RULES = make_rules()
IN_PLAY_WORLDS = coach.REVIEW_WORLDS
SEATS = (Seat("ai", "medium"), Seat("ai", "hard"))


def decks(seed: int, count: int = 30) -> list[list[int]]:
    """Decks whose opening table never voids the deal, so deal d is dealt from deck d."""
    rng = SplitMix64(seed)
    found: list[list[int]] = []
    while len(found) < count:
        deck = list(DECK)
        rng.shuffle(deck)
        if sum(NAME[c][0] == "K" for c in deck[6:10]) < 3:
            found.append(deck)
    return found


def moves_of(events: Sequence[StoredEvent]) -> list[tuple[int, Move]]:
    return [
        (e.seat, Move.of(parse_card(e.card), [parse_card(c) for c in e.capture]))
        for e in events
        if isinstance(e, CardPlayed)
    ]


def match(
    given: list[list[int]], script: Sequence[tuple[int, Move]] = (), rules: Rules = RULES
) -> tuple[MatchState, list[StoredEvent]]:
    """A match dealt from ``given``: the scripted plays first, then the AI seats' own."""
    initial, events = new_match(rules, SEATS, 9, given, first_dealer=0)
    state = initial
    for seat, move in script:
        state, more = play(state, seat, move)
        events.extend(more)
    while state.status == "active":
        assert state.turn is not None
        level = SEATS[state.turn].level
        assert level is not None
        move, _ = decide(state, state.turn, level, state.seq)
        state, more = play(state, state.turn, move)
        events.extend(more)
    return initial, events


@pytest.fixture(scope="module", autouse=True)
def fewer_worlds() -> Iterator[None]:
    """The coach judges each play over fewer sampled deals than in play: what these tests
    check (the order, the knowledge used, legality) holds for any number of them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(coach, "REVIEW_WORLDS", 12)
        yield


@pytest.fixture(scope="module")
def played() -> tuple[MatchState, list[StoredEvent], Review]:
    initial, events = match(decks(3))
    return initial, events, review(initial, events, 0)


def test_every_play_of_the_seat_is_judged_in_order(
    played: tuple[MatchState, list[StoredEvent], Review],
) -> None:
    _, events, got = played
    mine = [e for e in events if isinstance(e, CardPlayed) and e.seat == 0]
    assert [m.seq for m in got.moves] == [e.seq for e in mine]
    # The cards taken in table order, as the card_played event names them.
    assert [(m.played.card, m.played.capture) for m in got.moves] == [
        (e.card, e.capture) for e in mine
    ]
    assert all(m.loss >= 0 and round(m.loss, 2) == m.loss for m in got.moves)
    assert all(m.loss == 0 for m in got.moves if m.best == m.played)
    assert got.total_loss == round(sum(m.loss for m in got.moves), 2)
    assert any(m.loss > 0 for m in got.moves)  # a medium player errs against the expert
    assert not any(m.auto for m in got.moves)


def test_the_best_move_was_legal_then(
    played: tuple[MatchState, list[StoredEvent], Review],
) -> None:
    initial, events, got = played
    state = initial
    best = iter(got.moves)
    for seat, move in moves_of(events):
        if seat == 0:
            judged = next(best).best
            wanted = Move.of(parse_card(judged.card), [parse_card(c) for c in judged.capture])
            assert wanted in legal_moves(state)
        state, _ = play(state, seat, move)


def test_order_of_the_rivals_hidden_cards_cannot_change_the_review(
    played: tuple[MatchState, list[StoredEvent], Review],
) -> None:
    """Seat 1's cards dealt in each packet are swapped around among its own places in the
    deck: seat 0 sees the same cards played in the same order, so the same review."""
    _, events, got = played
    given = decks(3)
    rng = SplitMix64(77)
    for number, deck in enumerate(given):
        # Seat ``number % 2`` deals: seat 1 gets every other place of each packet of 6, from
        # the first place when seat 0 deals (the packets after the first follow the table).
        offset = number % 2
        for start in (0, 10, 16, 22, 28, 34):
            places = [start + offset, start + offset + 2, start + offset + 4]
            cards = [deck[i] for i in places]
            rng.shuffle(cards)
            for i, c in zip(places, cards, strict=True):
                deck[i] = c
    initial, shuffled = new_match(RULES, SEATS, 9, given, first_dealer=0)
    state = initial
    for seat, move in moves_of(events):
        state, more = play(state, seat, move)
        shuffled.extend(more)
    hidden = [e.hands[1] for e in events if isinstance(e, DealStarted)]
    assert hidden != [e.hands[1] for e in shuffled if isinstance(e, DealStarted)]
    assert review(initial, shuffled, 0) == got


def test_cards_the_seat_could_not_see_cannot_change_its_review_so_far(
    played: tuple[MatchState, list[StoredEvent], Review],
) -> None:
    """At one of seat 0's plays in the second deal, the rival's hand and the stock (and
    every later deck) are dealt anew from the same unseen cards; the match then goes
    another way, but the review up to that play is the same."""
    initial, events, got = played
    script = moves_of(events)
    state = initial
    state = initial
    at = 0
    while not (script[at][0] == 0 and state.deal == 2 and len(state.stock) == 18):
        state, _ = play(state, *script[at])
        at += 1
    unseen = set(state.hands[1]) | set(state.stock)
    given = decks(3)
    rng = SplitMix64(5)
    deck = given[1]
    places = [i for i, c in enumerate(deck) if c in unseen]
    cards = [deck[i] for i in places]
    while [deck[i] for i in places] == cards:
        rng.shuffle(cards)
    for i, c in zip(places, cards, strict=True):
        deck[i] = c
    for later in given[2:]:
        rng.shuffle(later)
    given = [given[0], deck, *decks(11)]
    other_initial, other_events = match(given, script[: at + 1])
    seq = [e.seq for e in other_events if isinstance(e, CardPlayed)][at]
    other = review(other_initial, other_events, 0)
    assert other_events != events
    before = [m for m in got.moves if m.seq <= seq]
    assert before
    assert [m for m in other.moves if m.seq <= seq] == before


def test_under_reveal_ai_hands_the_coach_knows_the_ai_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0 must lay a card on a bare table. Without seeing the rival's hand the cheapest
    card, its 5, is the expert's move; shown the rival's three 5s, laying it gives away a
    sweep, and the 6 is the move. (Over as many sampled deals as in play: over fewer, the
    hidden case may pick the 6 by the luck of the sample.)"""
    monkeypatch.setattr(coach, "REVIEW_WORLDS", IN_PLAY_WORLDS)
    mine = parse_cards(["5C", "6C", "7C"])
    theirs = parse_cards(["5D", "5H", "5S"])
    rest = [c for c in DECK if c not in mine + theirs]

    def knowledge(shown: tuple[tuple[int, ...] | None, ...]) -> Knowledge:
        return Knowledge(
            rules=RULES,
            players=2,
            seat=0,
            dealer=1,
            turn=0,
            hand=tuple(mine),
            table=(),
            piles=(tuple(rest[0:10:2]), tuple(rest[1:10:2])),
            hand_counts=(3, 3),
            deck_count=len(rest) - 10,
            sweeps=(0, 1),
            last_capturer=1,
            scores=(0, 0),
            shown=shown,
        )

    hidden, seen = knowledge(()), knowledge((None, tuple(theirs)))
    five = Move.of(mine[0], [])
    assert judge(hidden, [], five)[:2] == (five, 0.0)
    best, loss, _ = judge(seen, [], five)
    assert best == Move.of(mine[1], [])
    assert loss > 1.0  # the sweep, and the 5 it takes
    assert information_seed(seen, []) != information_seed(hidden, [])


def test_every_world_deals_a_shown_hand_as_it_is() -> None:
    initial, _ = new_match(make_rules(reveal_ai_hands=True), SEATS, 9, decks(3), first_dealer=0)
    k = knowledge_of(initial, 0, with_shown=True)
    assert k.shown == initial.hands  # both seats are AI seats
    rng = SplitMix64(1)
    for _ in range(50):
        deal = world(k, k.unseen, rng)
        assert deal.hands == [list(h) for h in initial.hands]
        assert sorted(deal.stock) == sorted(initial.stock)
    # Hidden, the rival's hand is dealt anew from the unseen cards.
    hidden = msgspec.structs.replace(k, shown=())
    assert len({tuple(world(hidden, hidden.unseen, rng).hands[1]) for _ in range(50)}) > 1


def test_the_review_sees_the_ai_hands_the_rules_show(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Knowledge] = []

    def spy(k: Knowledge, plays: Sequence[coach.Play], played: Move) -> tuple[Move, float, str]:
        seen.append(k)
        return played, 0.0, "spied"

    monkeypatch.setattr(coach, "judge", spy)
    for reveal in (False, True):
        seen.clear()
        initial, events = match(decks(3), rules=make_rules(reveal_ai_hands=reveal))
        review(initial, events, 0)
        state = initial
        judged = iter(seen)
        for seat, move in moves_of(events):
            if seat == 0:
                k = next(judged)
                assert k.shown == (state.hands if reveal else ())
                assert not set(k.unseen) & set(state.hands[1] if reveal else ())
            state, _ = play(state, seat, move)
        assert next(judged, None) is None
