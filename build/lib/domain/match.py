"""A match: setup, joining, playing, deal ends and the match's end.

``MatchState`` is an immutable value in a compact form (cards as ints) that serialises
with msgspec; every change is a function ``f(state, ...) -> (state, events)``. Each
accepted change (a join, a move) bumps ``version`` by one; events are numbered by ``seq``
from 1 without gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from domain.cards import DECK, NAME, names
from domain.deal import Deal
from domain.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidSetup,
    MatchNotActive,
    NoSuchSeat,
    NotYourTurn,
    SeatNotOpen,
)
from domain.events import (
    CardPlayed,
    CardsDealt,
    DealScored,
    DealStarted,
    LeftoversTaken,
    MatchFinished,
    Redeal,
    SeatJoined,
    StoredEvent,
)
from domain.moves import Move
from domain.rng import SplitMix64
from domain.rules import Rules
from domain.scoring import DealScore, score_deal, winner

SeatKind = Literal["human", "open", "ai"]
Status = Literal["waiting", "active", "finished"]


class Seat(msgspec.Struct, frozen=True):
    kind: SeatKind
    level: str | None = None


class MatchState(msgspec.Struct, frozen=True):
    rules: Rules
    seats: tuple[Seat, ...]
    rng: int
    status: Status = "waiting"
    version: int = 0
    seq: int = 0
    decks: tuple[tuple[int, ...], ...] = ()
    first_dealer: int | None = None
    deal: int = 0
    dealer: int | None = None
    turn: int | None = None
    hands: tuple[tuple[int, ...], ...] = ()
    table: tuple[int, ...] = ()
    stock: tuple[int, ...] = DECK
    piles: tuple[tuple[int, ...], ...] = ((), ())
    sweeps: tuple[int, ...] = (0, 0)
    last_capturer: int | None = None
    scores: tuple[int, ...] = (0, 0)
    deal_scores: tuple[DealScore, ...] = ()
    winner: int | None = None

    @property
    def players(self) -> int:
        return len(self.seats)


def new_match(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    decks: Sequence[Sequence[int]] = (),
    first_dealer: int | None = None,
) -> tuple[MatchState, list[StoredEvent]]:
    """A new match; it is dealt at once unless a seat is open."""
    problems: list[tuple[str, str]] = []
    players = len(seats)
    if players not in (2, 4):
        problems.append(("seats", f"{players} seats: Scopa is played by 2 or 4"))
    elif rules.hand_size == 6 and players != 2:
        problems.append(("rules.hand_size", "6-card hands are for 2 players only"))
    # make_rules refuses this too; a Rules built or decoded directly must not slip through.
    if rules.ace_sweeps != "off" and rules.capture == "fifteen":
        problems.append(("rules.ace_sweeps", "ace sweeps cannot be combined with capture fifteen"))
    for i, deck in enumerate(decks):
        if sorted(deck) != list(DECK):
            problems.append((f"decks[{i}]", "must be a permutation of the 40 cards"))
    if first_dealer is not None and not 0 <= first_dealer < max(players, 1):
        problems.append(("first_dealer", f"must be a seat, 0..{players - 1}"))
    if problems:
        raise InvalidSetup(problems)
    state = MatchState(
        rules=rules,
        seats=tuple(seats),
        rng=seed,
        decks=tuple(tuple(d) for d in decks),
        first_dealer=first_dealer,
        hands=((),) * players,
    )
    events: list[StoredEvent] = []
    if all(s.kind != "open" for s in seats):
        state = _start_deal(state, events)
    return state, events


def join(state: MatchState, seat: int) -> tuple[MatchState, list[StoredEvent]]:
    if not 0 <= seat < state.players:
        raise NoSuchSeat(f"seat {seat} does not exist in a {state.players}-player match")
    if state.seats[seat].kind != "open":
        raise SeatNotOpen(f"seat {seat} is not open")
    seats = tuple(Seat("human") if i == seat else s for i, s in enumerate(state.seats))
    events: list[StoredEvent] = [SeatJoined(seq=state.seq + 1, seat=seat)]
    state = msgspec.structs.replace(
        state, seats=seats, version=state.version + 1, seq=state.seq + 1
    )
    if all(s.kind != "open" for s in seats):
        state = _start_deal(state, events)
    return state, events


def current_deal(state: MatchState) -> Deal:
    """The deal in progress as the fast mutable engine (a fresh copy)."""
    return Deal(
        state.rules,
        state.players,
        state.dealer or 0,
        state.turn or 0,
        [list(h) for h in state.hands],
        list(state.table),
        list(state.stock),
        [list(p) for p in state.piles],
        list(state.sweeps),
        state.last_capturer,
    )


def legal_moves(state: MatchState) -> list[Move]:
    """Every distinct (card, cards taken) choice of the seat to play."""
    if state.status != "active":
        return []
    return current_deal(state).legal_moves()


def is_sweep(state: MatchState, move: Move) -> bool:
    """Whether ``move``, played now, scores a sweep."""
    return current_deal(state).is_sweep(move)


def resolve(state: MatchState, seat: int, card: int, capture: Sequence[int] | None) -> Move:
    """The move ``seat`` names by ``card`` and ``capture``; ``capture`` None lets the only
    legal choice stand (AmbiguousMove if there are several, IllegalMove if it is not legal)."""
    return _legal(_deal_for(state, seat), card, capture)


def play(state: MatchState, seat: int, move: Move) -> tuple[MatchState, list[StoredEvent]]:
    """Play ``move`` for ``seat``, refusing it (IllegalMove) unless it is a legal move."""
    deal = _deal_for(state, seat)
    move = _legal(deal, move.card, move.capture)
    stock_before = len(deal.stock)
    taken, sweep = deal.play(move)
    seq = state.seq + 1
    events: list[StoredEvent] = [
        CardPlayed(
            seq=seq, seat=seat, card=NAME[move.card], capture=tuple(names(taken)), sweep=sweep
        )
    ]
    if len(deal.stock) < stock_before:
        seq += 1
        events.append(
            CardsDealt(
                seq=seq,
                hands=tuple(tuple(names(h)) for h in deal.hands),
                deck_count=len(deal.stock),
            )
        )
    state = _with_deal(state, deal, version=state.version + 1, seq=seq)
    if deal.is_over():
        state = _end_deal(state, deal, events)
    return state, events


def _deal_for(state: MatchState, seat: int) -> Deal:
    if state.status != "active":
        raise MatchNotActive(f"the match is {state.status}")
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")
    return current_deal(state)


def _legal(deal: Deal, card: int, capture: Sequence[int] | None) -> Move:
    if card not in deal.hands[deal.turn]:
        raise IllegalMove(f"{NAME[card]} is not in your hand")
    options = deal.options(card)
    if capture is None:
        if len(options) > 1:
            # Named in table order, as the player sees the table.
            table = deal.table
            choices = " or ".join(
                "+".join(NAME[c] for c in table if c in m.capture) for m in options
            )
            raise AmbiguousMove(f"{NAME[card]} can take {choices}: say which in capture")
        return options[0] if options else Move(card)
    if len(set(capture)) != len(capture):
        raise IllegalMove("a card is listed twice in capture")
    move = Move.of(card, capture)
    if move in options or not (capture or options):
        return move
    if not options:
        raise IllegalMove(f"{NAME[card]} can take nothing: capture must be empty")
    if not capture:
        raise IllegalMove(f"{NAME[card]} must take when it can: taking is compulsory")
    absent = [NAME[c] for c in capture if c not in deal.table]
    if absent:
        raise IllegalMove(f"{', '.join(absent)} not on the table")
    raise IllegalMove(f"{NAME[card]} cannot take {'+'.join(NAME[c] for c in capture)}")


def _with_deal(state: MatchState, engine: Deal, **changes: object) -> MatchState:
    return msgspec.structs.replace(
        state,
        dealer=engine.dealer,
        turn=engine.turn,
        hands=tuple(tuple(h) for h in engine.hands),
        table=tuple(engine.table),
        stock=tuple(engine.stock),
        piles=tuple(tuple(p) for p in engine.piles),
        sweeps=tuple(engine.sweeps),
        last_capturer=engine.last_capturer,
        **changes,
    )


def _start_deal(state: MatchState, events: list[StoredEvent]) -> MatchState:
    """Deal the next deal, voiding and reshuffling while the table shows 3+ kings."""
    rng = SplitMix64(state.rng)
    number = state.deal + 1
    players = state.players
    if state.dealer is None:
        dealer = state.first_dealer if state.first_dealer is not None else rng.below(players)
    else:
        dealer = (state.dealer + 1) % players
    if number <= len(state.decks):
        deck = list(state.decks[number - 1])
    else:
        deck = list(DECK)
        rng.shuffle(deck)
    seq = state.seq
    while True:
        deal = Deal.open(state.rules, players, dealer, deck)
        if not deal.is_void():
            break
        seq += 1
        events.append(Redeal(seq=seq, deal=number, table=tuple(names(deal.table))))
        rng.shuffle(deck)
    seq += 1
    events.append(
        DealStarted(
            seq=seq,
            deal=number,
            dealer=dealer,
            table=tuple(names(deal.table)),
            hands=tuple(tuple(names(h)) for h in deal.hands),
        )
    )
    return _with_deal(state, deal, status="active", deal=number, seq=seq, rng=rng.state)


def _end_deal(state: MatchState, deal: Deal, events: list[StoredEvent]) -> MatchState:
    seq = state.seq
    team, left = deal.take_leftovers()
    if left:
        seq += 1
        events.append(LeftoversTaken(seq=seq, team=team, cards=tuple(names(left))))
    score = score_deal(state.rules, state.deal, deal.piles, deal.sweeps, state.scores)
    seq += 1
    events.append(DealScored(seq=seq, deal=score.deal, teams=score.teams, scores=score.scores))
    won = winner(score.scores, state.rules.target)
    state = _with_deal(
        state,
        deal,
        seq=seq,
        scores=score.scores,
        deal_scores=(*state.deal_scores, score),
    )
    if won is None:
        return _start_deal(state, events)
    seq += 1
    events.append(MatchFinished(seq=seq, winner=won, scores=score.scores))
    return msgspec.structs.replace(
        state,
        status="finished",
        seq=seq,
        turn=None,
        winner=won,
        hands=((),) * state.players,
    )


def replay(initial: MatchState, events: Sequence[StoredEvent]) -> MatchState:
    """Re-apply the joins and plays of an event log to the match as it was created."""
    state = initial
    for event in events:
        if isinstance(event, SeatJoined):
            state, _ = join(state, event.seat)
        elif isinstance(event, CardPlayed):
            move = Move.of(NAME.index(event.card), [NAME.index(c) for c in event.capture])
            state, _ = play(state, event.seat, move)
    return state


def ai_to_play(state: MatchState) -> int | None:
    """The AI seat whose turn it is, if any."""
    if state.status != "active" or state.turn is None:
        return None
    return state.turn if state.seats[state.turn].kind == "ai" else None
