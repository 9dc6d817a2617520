"""Match flow: teams, leftovers, the match's end, refused moves and refused setups."""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec
import pytest

from scopa.domain.cards import NAME, names
from scopa.domain.deal import Deal
from scopa.domain.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidMove,
    InvalidSetup,
    MatchNotActive,
    NotYourTurn,
)
from scopa.domain.events import (
    CardPlayed,
    DealScored,
    DealStarted,
    LeftoversTaken,
    MatchFinished,
    StoredEvent,
)
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules
from scopa.domain.scoring import winner
from tests.unit.build import cards, deck_for, humans, match_at, match_with, play_through, resolve


def test_four_players_play_in_turn_and_capture_for_their_team() -> None:
    # Dealer 3: seat 0 leads. Seat 2 takes for team 0, seat 3 for team 1.
    state = match_with(
        ["2C 3C 4C", "3D 4D 2D", "5S AS 6H", "7S 6C 6D"], "5H 7H JH QH", make_rules(players=4),
        dealer=3,
    )  # fmt: skip
    order = [("2C", []), ("3D", []), ("5S", ["5H"]), ("7S", ["7H"])]
    for seat, (card, capture) in enumerate(order):
        assert state.turn == seat
        state, _ = play(state, seat, Move.of(cards(card)[0], cards(" ".join(capture))))
    assert [sorted(names(p)) for p in state.piles] == [["5H", "5S"], ["7H", "7S"]]
    assert state.turn == 0
    assert state.last_capturer == 1


def test_leftovers_go_to_the_last_capturer_at_the_deals_end() -> None:
    # Play a whole deal; the last capture's team gets every card still on the table.
    state, events = new_match(make_rules(target=100), humans(2), 3)
    state, more = play_through(state, until_deal=2)
    events += more
    ended = events.index(next(e for e in events if isinstance(e, DealScored)))
    plays = [e for e in events[:ended] if isinstance(e, CardPlayed)]
    last_taker = [e.seat for e in plays if e.capture][-1]
    table: list[str] = list(next(e for e in events if isinstance(e, DealStarted)).table)
    for e in plays:
        table = [c for c in table if c not in e.capture] + ([] if e.capture else [e.card])
    left = events[ended - 1]
    assert table, "this seed's first deal ends with cards on the table"
    assert isinstance(left, LeftoversTaken)
    assert (left.team, sorted(left.cards)) == (last_taker, sorted(table))
    score = events[ended]
    assert isinstance(score, DealScored)
    assert sum(t.cards for t in score.teams) == 40


def test_with_no_capture_in_the_whole_deal_the_leftovers_go_to_nobody() -> None:
    deal = Deal(
        make_rules(), 2, 0, 1, [[], cards("KD")], cards("2C 3D"), [], [[], []], [0, 0], None
    )
    taken, sweep = deal.play(Move.parse("KD:"))
    assert (taken, sweep) == ([], False)
    assert deal.take_leftovers() == (None, cards("2C 3D KD"))
    assert deal.piles == [[], []]
    assert deal.table == []


def test_a_match_deal_ending_with_nobody_having_captured() -> None:
    """A stored state at the last play with no capture yet (not reachable with a full
    deck, since a second card of a value always finds the first, but the rule stands)."""
    state = match_with(["2C 3C 4C", "5C 6C 7C"], "KD KH QS JS", dealer=1)
    state = msgspec.structs.replace(
        state, hands=((), tuple(cards("2D"))), table=tuple(cards("KD QS")), stock=(), turn=1
    )
    _, events = play(state, 1, Move.parse("2D:"))
    assert isinstance(events[1], LeftoversTaken)
    assert (events[1].team, list(events[1].cards)) == (None, ["KD", "QS", "2D"])
    assert isinstance(events[2], DealScored)
    assert [t.cards for t in events[2].teams] == [0, 0]


@pytest.mark.parametrize(
    ("scores", "target", "expected"),
    [
        ((5, 3), 11, None),
        ((11, 3), 11, 0),
        ((10, 14), 11, 1),
        ((12, 11), 11, 0),
        ((11, 11), 11, None),
        ((13, 13), 11, None),
        ((10, 10), 11, None),
        ((1, 0), 1, 0),
    ],
)
def test_winner_after_a_deal(scores: tuple[int, int], target: int, expected: int | None) -> None:
    assert winner(scores, target) == expected


def first_deal_scores(
    rules: Rules, accept: Callable[[tuple[int, ...]], bool]
) -> tuple[MatchState, list[StoredEvent]]:
    """The first seed whose first deal (first legal moves) ends with scores ``accept`` likes."""
    for seed in range(200):
        state, events = new_match(rules, humans(2), seed)
        state, more = play_through(state, until_deal=2)
        events += more
        (scored,) = [e for e in events if isinstance(e, DealScored)]
        if accept(scored.scores):
            return state, events
    pytest.fail("no seed gives such a deal")


def test_the_higher_total_wins_once_a_team_reaches_the_target() -> None:
    state, events = first_deal_scores(make_rules(target=3), lambda s: max(s) >= 3 and s[0] != s[1])
    scored = next(e for e in events if isinstance(e, DealScored))
    finished = events[-1]
    assert isinstance(finished, MatchFinished)
    assert events[-2] is scored
    best = max(scored.scores)
    assert finished.winner == scored.scores.index(best)
    assert finished.scores == scored.scores
    assert (state.status, state.winner, state.turn, state.deal) == (
        "finished",
        finished.winner,
        None,
        1,
    )
    assert state.hands == ((), ())
    assert state.table == ()
    with pytest.raises(MatchNotActive):
        play(state, 0, Move(0))


def test_a_tie_at_or_over_the_target_plays_another_deal() -> None:
    state, events = first_deal_scores(make_rules(target=1), lambda s: s[0] == s[1] >= 1)
    assert not [e for e in events if isinstance(e, MatchFinished)]
    assert (state.status, state.deal, state.winner) == ("active", 2, None)
    assert isinstance(events[-1], DealStarted)


def test_nobody_wins_mid_deal() -> None:
    # Target 1, and seat 0 sweeps on the first play: the match plays on to the deal's end.
    state = match_with(["KC 5C 6C", "2C 3C 4C"], "AC 2D 3H 4S", make_rules(target=1), dealer=1)
    state, events = play(state, 0, Move.parse("KC:AC+2D+3H+4S"))
    assert isinstance(events[0], CardPlayed)
    assert events[0].sweep is True
    assert (state.status, state.sweeps, state.scores, state.winner) == (
        "active",
        (1, 0),
        (0, 0),
        None,
    )
    state, events = play_through(state)
    scored = [e for e in events if isinstance(e, DealScored)]
    assert scored[0].teams[0].points.sweeps >= 1
    assert isinstance(events[-1], MatchFinished)
    assert isinstance(events[-2], DealScored)
    assert state.status == "finished"


def test_version_and_seq_grow_with_each_move() -> None:
    state, events = new_match(make_rules(), humans(2), 9)
    assert (state.version, [e.seq for e in events]) == (0, [1])
    for n in range(1, 8):
        assert state.turn is not None
        state, new = play(state, state.turn, legal_moves(state)[0])
        assert state.version == n
        assert [e.seq for e in new] == list(
            range(events[-1].seq + 1, events[-1].seq + 1 + len(new))
        )
        assert state.seq == new[-1].seq
        events += new


# --- refused moves -----------------------------------------------------------------


def test_not_your_turn() -> None:
    state, seat = match_at("2C 3D 6H KS", "5C")
    with pytest.raises(NotYourTurn):
        play(state, 1 - seat, Move(state.hands[1 - seat][0]))
    with pytest.raises(NotYourTurn):
        resolve(state, 1 - seat, state.hands[1 - seat][0], None)


def test_match_not_active_before_every_seat_is_taken() -> None:
    state, _ = new_match(make_rules(), [Seat("human"), Seat("open")], 1)
    assert state.status == "waiting"
    with pytest.raises(MatchNotActive):
        play(state, 0, Move(0))
    with pytest.raises(MatchNotActive):
        resolve(state, 0, 0, None)
    assert legal_moves(state) == []


@pytest.mark.parametrize(
    ("table", "hand", "card", "capture", "why"),
    [
        ("2C 3D 6H KS", "5C", "7D", None, "not in your hand"),
        ("2C 3D 6H KS", "5C", "5C", ["6H"], "cannot take"),
        ("2C 3D 6H KS", "5C", "5C", ["2C", "6H"], "cannot take"),
        ("2C 3D 6H KS", "5C", "5C", ["2C", "3D", "5H"], "not on the table"),
        ("2C 3D 6H KS", "5C", "5C", ["2C", "2C", "3D"], "listed twice"),
        ("2C 3D 6H KS", "5C", "5C", ["2C", "2C"], "listed twice"),
        ("2C 3D 6H KS", "5C", "5C", [], "compulsory"),
        ("3C 4D", "6H", "6H", ["3C"], "can take nothing"),
        ("2C 3D 5H KS", "5C", "5C", ["2C", "3D"], "cannot take"),
    ],
    ids=[
        "not in hand", "wrong card", "wrong sum", "not on table",
        "listed twice", "listed twice only", "compulsory", "takes nothing", "sum before single",
    ],
)  # fmt: skip
def test_illegal_moves_are_refused_and_change_nothing(
    table: str, hand: str, card: str, capture: list[str] | None, why: str
) -> None:
    state, seat = match_at(table, hand)
    before = msgspec.json.encode(state)
    played = cards(card)[0]
    taken = None if capture is None else cards(" ".join(capture))
    with pytest.raises(IllegalMove, match=why):
        resolve(state, seat, played, taken)
    if taken is not None:
        # The same checks whether a request names the move or the move is played as is.
        with pytest.raises(IllegalMove, match=why):
            play(state, seat, Move(played, tuple(taken)))
    assert msgspec.json.encode(state) == before


def test_an_omitted_capture_with_several_choices_is_ambiguous_not_illegal() -> None:
    state, seat = match_at("AC 2D 4H 6S", "7C")
    detail = "7C can take AC+2D+4H or AC+6S: say which in capture"
    with pytest.raises(AmbiguousMove, match=re.escape(detail)) as raised:
        resolve(state, seat, cards("7C")[0], None)
    assert isinstance(raised.value, InvalidMove)
    assert not isinstance(raised.value, IllegalMove)


def test_capture_none_takes_the_only_choice() -> None:
    state, seat = match_at("2C 3D 6H KS", "5C")
    move = resolve(state, seat, cards("5C")[0], None)
    assert move == Move.parse("5C:2C+3D")
    after, events = play(state, seat, move)
    assert isinstance(events[0], CardPlayed)
    assert events[0].capture == ("2C", "3D")
    assert [NAME[c] for c in after.table] == ["6H", "KS"]


def test_capture_order_does_not_matter() -> None:
    state, seat = match_at("AC 2D 4H 6S", "7C")
    assert resolve(state, seat, cards("7C")[0], cards("4H AC 2D")) == Move.parse("7C:AC+2D+4H")
    after, _ = play(state, seat, Move(cards("7C")[0], tuple(cards("4H AC 2D"))))
    assert [NAME[c] for c in after.table] == ["6S"]


# --- refused setups ----------------------------------------------------------------


def problems(call: Callable[..., object]) -> list[str]:
    with pytest.raises(InvalidSetup) as raised:
        call()
    return [name for name, _ in raised.value.problems]


def test_three_seats_are_refused() -> None:
    assert problems(lambda: new_match(make_rules(), humans(3), 1)) == ["seats"]
    assert problems(lambda: make_rules(players=3)) == ["seats"]


@pytest.mark.parametrize(
    ("decks", "bad"),
    [
        ([[0] * 40], ["decks[0]"]),
        ([list(range(39))], ["decks[0]"]),
        ([list(range(41))], ["decks[0]"]),
        ([list(range(40)), [*range(39), 0]], ["decks[1]"]),
        ([list(range(1, 41))], ["decks[0]"]),
    ],
    ids=["repeats", "short", "long", "second", "out of range"],
)
def test_a_deck_that_is_not_a_permutation_is_refused(
    decks: list[list[int]], bad: list[str]
) -> None:
    assert problems(lambda: new_match(make_rules(), humans(2), 1, decks)) == bad


def test_six_cards_with_four_players_are_refused() -> None:
    rules = make_rules(hand_size=6)
    assert problems(lambda: new_match(rules, humans(4), 1)) == ["rules.hand_size"]
    assert problems(lambda: make_rules(hand_size=6, players=4)) == ["rules.hand_size"]


def test_ace_sweeps_with_fifteen_are_refused() -> None:
    for mode in ("sweep", "no_point"):
        assert problems(lambda m=mode: make_rules(capture="fifteen", ace_sweeps=m)) == [
            "rules.ace_sweeps"
        ]
        built = Rules(capture="fifteen", ace_sweeps=mode)
        assert problems(lambda r=built: new_match(r, humans(2), 1)) == ["rules.ace_sweeps"]


@pytest.mark.parametrize(("players", "dealer"), [(2, 2), (2, -1), (4, 4)])
def test_a_first_dealer_that_is_not_a_seat_is_refused(players: int, dealer: int) -> None:
    assert problems(
        lambda: new_match(make_rules(players=players), humans(players), 1, (), dealer)
    ) == ["first_dealer"]


def test_every_bad_field_is_named_at_once() -> None:
    assert problems(lambda: new_match(make_rules(), humans(3), 1, [[1] * 40], 5)) == [
        "seats",
        "decks[0]",
        "first_dealer",
    ]


def test_other_rule_values_are_refused_by_name() -> None:
    assert problems(lambda: make_rules(target=0)) == ["rules.target"]
    assert problems(lambda: make_rules(target=101)) == ["rules.target"]
    assert problems(lambda: make_rules(hand_size=4)) == ["rules.hand_size"]
    assert problems(lambda: make_rules(capture="sum")) == ["rules.capture"]
    assert problems(lambda: make_rules(ace_sweeps="always")) == ["rules.ace_sweeps"]
    assert make_rules(diamond_sequence=True).target == 21
    assert make_rules().target == 11
    assert make_rules(target=5, diamond_sequence=True).target == 5


def test_an_explicit_deck_is_dealt_as_given() -> None:
    deck = deck_for(["AC 2C 3C", "4C 5C 6C"], "7C JC QC KC", dealer=1)
    state, _ = new_match(make_rules(), humans(2), 1, [deck], 1)
    assert [names(h) for h in state.hands] == [["AC", "2C", "3C"], ["4C", "5C", "6C"]]
