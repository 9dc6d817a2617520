"""Exact positions from explicit decks, and small helpers to drive a match in tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from scopa.domain.cards import NAME, VALUE, parse_card, parse_cards
from scopa.domain.events import CardPlayed, StoredEvent
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play, play_named
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules


class RuleOptions(TypedDict, total=False):
    """Keywords of ``make_rules`` that tests choose a variant by."""

    target: int
    capture: str
    ace_sweeps: str
    king_of_diamonds: bool
    diamond_sequence: bool
    hand_size: int


def cards(text: str) -> list[int]:
    """``"7D AS"`` -> the card ints."""
    return parse_cards(text.split())


def deck_for(
    hands: Sequence[str], table: str, *, dealer: int = 0, packets: Sequence[Sequence[str]] = ()
) -> list[int]:
    """A deck that deals ``hands`` (one string per seat) and ``table`` with this dealer.

    Cards go one at a time from the top, starting with the seat after the dealer, as
    docs/rules.md says; ``packets`` are later packets in the same form; the unnamed cards follow
    in card order.
    """
    deck: list[int] = []
    for packet in (hands, *packets):
        players = len(packet)
        per_seat = [cards(h) for h in packet]
        size = len(per_seat[0])
        for j in range(players * size):
            seat = (dealer + 1 + j) % players
            deck.append(per_seat[seat][j // players])
        if packet is hands:
            deck += cards(table)
    deck += [c for c in range(40) if c not in deck]
    assert sorted(deck) == list(range(40)), "the named cards repeat a card"
    return deck


def resolve(state: MatchState, seat: int, card: int, capture: Sequence[int] | None) -> Move:
    """The move ``play_named`` makes of ``card`` and ``capture`` (its errors if none)."""
    _, events = play_named(state, seat, card, capture)
    played = events[0]
    assert isinstance(played, CardPlayed)
    return Move.of(parse_card(played.card), parse_cards(played.capture))


def humans(players: int = 2) -> list[Seat]:
    return [Seat("human")] * players


def match_with(
    hands: Sequence[str],
    table: str,
    rules: Rules | None = None,
    *,
    dealer: int = 0,
    packets: Sequence[Sequence[str]] = (),
    seed: int = 0,
) -> MatchState:
    """A match of humans whose first deal deals exactly these hands and table."""
    players = len(hands)
    rules = rules or make_rules(players=players)
    deck = deck_for(hands, table, dealer=dealer, packets=packets)
    state, _ = new_match(rules, humans(players), seed, [deck], dealer)
    return state


def _fillers(rules: Rules, count: int, used: set[int]) -> list[tuple[int, int]]:
    """``count`` (table card, card that takes it alone) pairs; no ace, and no third king
    on the opening table (that would void the deal)."""
    pairs: list[tuple[int, int]] = []
    free = [c for c in range(40) if c not in used]
    kings = 2 - sum(VALUE[c] == 10 for c in used)
    for v in (9, 8, 10, 7, 6, 5):
        partner = 15 - v if rules.capture == "fifteen" else v
        while len(pairs) < count and not (v == 10 and kings <= 0):
            filler = next((c for c in free if VALUE[c] == v), None)
            taker = next((c for c in free if VALUE[c] == partner and c != filler), None)
            if filler is None or taker is None:
                break
            pairs.append((filler, taker))
            free = [c for c in free if c not in (filler, taker)]
            kings -= v == 10
    assert len(pairs) == count
    return pairs


def match_at(table: str, hand: str, rules: Rules | None = None) -> tuple[MatchState, int]:
    """A 2-player match where the table is exactly ``table`` (0 to 4 cards) and the seat to
    play holds ``hand`` (plus spare cards up to a full hand), reached by real play.

    The first deal shows ``table`` plus filler cards, which the seats take away one per
    turn (seat 0 leads) by single captures. Returns the match and the seat to play.
    """
    rules = rules or make_rules()
    on_table = cards(table)
    mine = cards(hand)
    pairs = _fillers(rules, 4 - len(on_table), {*on_table, *mine})
    mover = len(pairs) % 2
    held: list[list[int]] = [[], []]
    for turn, (_, taker) in enumerate(pairs):
        held[turn % 2].append(taker)
    held[mover] += mine
    used = {*on_table, *mine, *(c for pair in pairs for c in pair)}
    spare = iter(c for c in range(40) if c not in used)
    for h in held:
        assert len(h) <= rules.hand_size, "no room in the hand for the takers"
        while len(h) < rules.hand_size:
            h.append(next(spare))
    state = match_with(
        [" ".join(NAME[c] for c in h) for h in held],
        " ".join(NAME[c] for c in [*on_table, *(f for f, _ in pairs)]),
        rules,
        dealer=1,
    )
    for turn, (filler, taker) in enumerate(pairs):
        state, _ = play(state, turn % 2, Move.of(taker, [filler]))
    assert list(state.table) == on_table
    assert state.turn == mover
    assert set(mine) <= set(state.hands[mover])
    return state, mover


def first_move(state: MatchState) -> Move:
    """A fixed choice: the first legal move of the seat to play."""
    return legal_moves(state)[0]


def play_through(
    state: MatchState, *, until_deal: int | None = None
) -> tuple[MatchState, list[StoredEvent]]:
    """Play first legal moves until the match ends (or deal ``until_deal`` starts)."""
    events: list[StoredEvent] = []
    while state.status == "active" and (until_deal is None or state.deal < until_deal):
        assert state.turn is not None
        state, new = play(state, state.turn, first_move(state))
        events += new
    return state, events
