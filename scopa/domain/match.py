"""A match: setup, joining, playing, deal ends and the match's end.

``MatchState`` is an immutable value in a compact form (cards as ints) that serialises
with msgspec; every change is a function ``f(state, ...) -> (state, events)``. Each
accepted change (a join, a move, an ending) bumps ``version`` by one; events are numbered
by ``seq`` from 1 without gaps.

A match ends when a side reaches the target, or early: a seat resigns, a timeout loses,
it is aborted before anyone really played, or its time runs out waiting for players or
for a move (``expire``, ``abandon``). When those moments come is the service's to know;
the domain has no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from scopa.domain.cards import DECK, NAME, names
from scopa.domain.deal import Deal, opening_cards, team_of
from scopa.domain.errors import (
    AmbiguousMove,
    CannotAbort,
    IllegalMove,
    InvalidSetup,
    MatchNotActive,
    NoSuchSeat,
    NotYourTurn,
    SeatNotOpen,
)
from scopa.domain.events import (
    CardPlayed,
    CardsDealt,
    DealScored,
    DealStarted,
    EndReason,
    LeftoversTaken,
    MatchFinished,
    Redeal,
    RematchOffered,
    SeatJoined,
    StoredEvent,
)
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules, setup_problems
from scopa.domain.scoring import DealScore, score_deal, winner

# "reserved": a rematch's seat, waiting for the player who held it in the match before.
SeatKind = Literal["human", "open", "ai", "reserved"]
Status = Literal["waiting", "active", "finished"]
# Timing out on this many of its turns in a row loses a seat the match.
TIMEOUTS_TO_LOSE = 3


class Seat(msgspec.Struct, frozen=True):
    kind: SeatKind
    level: str | None = None
    name: str | None = None  # a human seat's display name, public
    # A reserved seat: the token hash of the seat that may claim it. Never shown.
    claim: str | None = None
    player: str | None = None  # the handle of the registered player on the seat, public


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
    end_reason: EndReason | None = None
    # Per seat, the turns in a row it timed out on; () until a first timeout.
    timeouts: tuple[int, ...] = ()
    # The seed as given or drawn at create (None: stored before it was kept); secret until
    # the match is finished unless the creator gave it or the decks (``seeded``).
    seed: int | None = None
    seeded: bool = True
    # The AI's and the hints' randomness: a secret apart from the seed, so that no answer
    # depends on the cards to come.
    ai_secret: int = 0
    rematch: str | None = None  # the next match's id, once a rematch is offered
    # Rated: its players' ratings change when it finishes (only seats held by players).
    rated: bool = False

    @property
    def players(self) -> int:
        return len(self.seats)


def new_match(
    rules: Rules,
    seats: Sequence[Seat],
    seed: int,
    decks: Sequence[Sequence[int]] = (),
    first_dealer: int | None = None,
    *,
    seeded: bool = True,
    ai_secret: int = 0,
    rated: bool = False,
) -> tuple[MatchState, list[StoredEvent]]:
    """A new match; it is dealt at once unless a seat waits for a player.

    ``seeded``: whoever made the match could know its cards (it gave the seed or decks)."""
    players = len(seats)
    problems = setup_problems(rules, players, decks, first_dealer)
    if problems:
        raise InvalidSetup(problems)
    state = MatchState(
        rules=rules,
        seats=tuple(seats),
        rng=seed,
        decks=tuple(tuple(d) for d in decks),
        first_dealer=first_dealer,
        hands=((),) * players,
        seed=seed,
        seeded=seeded,
        ai_secret=ai_secret,
        rated=rated,
    )
    events: list[StoredEvent] = []
    if not _awaits_player(state.seats):
        state = _start_deal(state, events)
    return state, events


def _awaits_player(seats: Sequence[Seat]) -> bool:
    return any(s.kind in ("open", "reserved") for s in seats)


def join(
    state: MatchState,
    seat: int,
    name: str | None = None,
    claim: str | None = None,
    player: str | None = None,
) -> tuple[MatchState, list[StoredEvent]]:
    """Take an open seat, or a reserved one with its ``claim`` or by the ``player`` it
    was held by; the last one deals. ``player``: the handle of the player taking it.

    A claim keeps the seat's name unless ``name`` gives another."""
    if not 0 <= seat < state.players:
        raise NoSuchSeat(f"seat {seat} does not exist in a {state.players}-player match")
    if state.status == "finished":
        raise SeatNotOpen(f"seat {seat} is not open: the match is over")
    taken = state.seats[seat]
    if taken.kind == "reserved" and (
        (claim is not None and claim == taken.claim)
        or (player is not None and player == taken.player)
    ):
        name = taken.name if name is None else name
        player = taken.player
    elif taken.kind == "reserved":
        raise SeatNotOpen(f"seat {seat} is reserved for its player in the match before")
    elif taken.kind != "open":
        raise SeatNotOpen(f"seat {seat} is not open")
    elif state.rated and player is None:
        raise SeatNotOpen(f"seat {seat} of a rated match is taken only by a registered player")
    if player is not None and any(s.player == player for s in state.seats if s is not taken):
        raise SeatNotOpen(f"player {player} already holds a seat in this match")
    seats = tuple(
        Seat("human", name=name, player=player) if i == seat else s
        for i, s in enumerate(state.seats)
    )
    events: list[StoredEvent] = [SeatJoined(seq=state.seq + 1, seat=seat, name=name, player=player)]
    state = msgspec.structs.replace(
        state, seats=seats, version=state.version + 1, seq=state.seq + 1
    )
    if not _awaits_player(seats):
        state = _start_deal(state, events)
    return state, events


def rematch_of(
    state: MatchState, seat: int, claims: Mapping[int, str], seed: int, ai_secret: int
) -> tuple[MatchState, list[StoredEvent]]:
    """The next match of a finished one, asked for by ``seat``: the same rules and seats
    (kinds, levels, names), ``seat`` taken, every other human seat reserved for the token
    hash ``claims`` names (open when it names none: its player was deleted), and the first
    deal to the seat after the last dealer."""
    if state.status != "finished" or state.dealer is None:
        raise MatchNotActive("only a finished match that was dealt can be played again")
    seats = [
        (
            Seat("reserved", name=s.name, claim=claims[i], player=s.player)
            if i in claims
            else Seat("open")
        )
        if s.kind == "human" and i != seat
        else s
        for i, s in enumerate(state.seats)
    ]
    first_dealer = (state.dealer + 1) % state.players
    return new_match(
        state.rules,
        seats,
        seed,
        (),
        first_dealer,
        seeded=False,
        ai_secret=ai_secret,
        rated=state.rated,
    )


def offer_rematch(state: MatchState, match_id: str) -> tuple[MatchState, list[StoredEvent]]:
    """Point a finished match at its rematch ``match_id``: a change, with its event."""
    if state.status != "finished" or state.dealer is None:
        raise MatchNotActive("only a finished match that was dealt can be played again")
    seq = state.seq + 1
    return (
        msgspec.structs.replace(state, rematch=match_id, version=state.version + 1, seq=seq),
        [RematchOffered(seq=seq, match_id=match_id)],
    )


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


def play(state: MatchState, seat: int, move: Move) -> tuple[MatchState, list[StoredEvent]]:
    """Play ``move`` for ``seat``, refusing it (IllegalMove) unless it is a legal move."""
    return play_named(state, seat, move.card, move.capture)


def play_named(
    state: MatchState, seat: int, card: int, capture: Sequence[int] | None
) -> tuple[MatchState, list[StoredEvent]]:
    """Play the move ``seat`` names by ``card`` and ``capture``: a move request's path.
    ``capture`` None lets the card's only legal choice stand (AmbiguousMove if there are
    several); IllegalMove unless the move is legal."""
    deal = _deal_for(state, seat)
    move = _legal(deal, card, capture)
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
    timeouts = state.timeouts
    if timeouts and timeouts[seat]:
        timeouts = _with_count(timeouts, seat, 0)  # a card of its own breaks the run
    state = _with_deal(state, deal, version=state.version + 1, seq=seq, timeouts=timeouts)
    if deal.is_over():
        state = _end_deal(state, deal, events)
    return state, events


def time_out(state: MatchState, move: Move | None = None) -> tuple[MatchState, list[StoredEvent]]:
    """The human seat to play ran out of time. Under ``forfeit`` its team loses; under
    ``autoplay`` ``move`` (the hard AI's choice) is played for it, marked ``auto``, and
    its third timeout in a row then loses it the match."""
    seat = human_to_play(state)
    if seat is None:
        raise MatchNotActive(f"the match is {state.status} and no human seat is to play")
    if state.rules.on_timeout == "forfeit":
        return _ended(state, _other_team(state, seat), "timeout")
    if move is None:
        raise ValueError("autoplay needs the move to play")
    count = (state.timeouts[seat] if state.timeouts else 0) + 1
    state, events = play(state, seat, move)
    played = events[0]
    assert isinstance(played, CardPlayed)
    events[0] = msgspec.structs.replace(played, auto=True)
    timeouts = _with_count(state.timeouts or (0,) * state.players, seat, count)
    state = msgspec.structs.replace(state, timeouts=timeouts)
    if count >= TIMEOUTS_TO_LOSE and state.status == "active":
        state = finish(state, _other_team(state, seat), "timeout", events)
    return state, events


def resign(state: MatchState, seat: int) -> tuple[MatchState, list[StoredEvent]]:
    """``seat``'s team gives up: the other team wins at once."""
    if state.status != "active":
        raise MatchNotActive(f"the match is {state.status}")
    return _ended(state, _other_team(state, seat), "resigned")


def abort(state: MatchState) -> tuple[MatchState, list[StoredEvent]]:
    """Call the match off, nobody winning: while it waits for players, or before any human
    seat has played a card of its own; a rated match only while it waits, before its
    seats have seen their cards (a look at a poor hand must not buy a way out)."""
    if state.status == "finished":
        raise CannotAbort("the match is over")
    if state.rated and state.status != "waiting":
        raise CannotAbort("a rated match is dealt and its seats have seen their cards: resign")
    if human_has_played(state):
        raise CannotAbort("a human seat has played a card: resign instead")
    return _ended(state, None, "aborted")


def expire(state: MatchState) -> tuple[MatchState, list[StoredEvent]]:
    """Nobody came to fill the open seats in time."""
    if state.status != "waiting":
        raise MatchNotActive(f"the match is {state.status}, not waiting")
    return _ended(state, None, "expired")


def abandon(state: MatchState) -> tuple[MatchState, list[StoredEvent]]:
    """The human seat to play, without a clock, has let the match lie for too long: it is
    abandoned, nobody winning; a rated match is lost by that seat's team (``timeout``),
    so that walking away from one never dodges its rating."""
    seat = human_to_play(state)
    if seat is None:
        raise MatchNotActive(f"the match is {state.status} and no human seat is to play")
    if state.rated:
        return _ended(state, _other_team(state, seat), "timeout")
    return _ended(state, None, "abandoned")


def finish(
    state: MatchState, winner: int | None, reason: EndReason, events: list[StoredEvent]
) -> MatchState:
    """The match's end, appended to ``events``; a deal in progress stays as it stood (it is
    not scored: only finished deals count)."""
    seq = state.seq + 1
    events.append(MatchFinished(seq=seq, winner=winner, scores=state.scores, reason=reason))
    return msgspec.structs.replace(
        state, status="finished", seq=seq, turn=None, winner=winner, end_reason=reason
    )


def _ended(
    state: MatchState, winner: int | None, reason: EndReason
) -> tuple[MatchState, list[StoredEvent]]:
    """An ending that is a change of its own."""
    events: list[StoredEvent] = []
    bumped = msgspec.structs.replace(state, version=state.version + 1)
    return finish(bumped, winner, reason, events), events


def human_has_played(state: MatchState) -> bool:
    """Whether a human seat has played a card of its own choosing (autoplay does not count).

    Derived rather than stored. A deal ends only once every seat has played all its cards,
    and no seat lasts through three timeouts in a row, so once the first deal is over
    every human seat has played. Within the first deal, a seat has played a card itself
    when it has played more cards than the timeouts it has in a row.
    """
    if state.status == "waiting":
        return False
    if state.deal > 1:
        return True
    # Each seat's share of the cards dealt to hands so far this deal.
    _, up = opening_cards(state.rules, state.players)
    dealt = (len(DECK) - up - len(state.stock)) // state.players
    timeouts = state.timeouts or (0,) * state.players
    return any(
        seat.kind == "human" and dealt - len(state.hands[i]) > timeouts[i]
        for i, seat in enumerate(state.seats)
    )


def _other_team(state: MatchState, seat: int) -> int:
    return 1 - team_of(seat, state.players)


def _with_count(counts: tuple[int, ...], seat: int, count: int) -> tuple[int, ...]:
    return (*counts[:seat], count, *counts[seat + 1 :])


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
        events.append(
            Redeal(seq=seq, deal=number, table=tuple(names(deal.table)), deck=tuple(names(deck)))
        )
        rng.shuffle(deck)
    seq += 1
    events.append(
        DealStarted(
            seq=seq,
            deal=number,
            dealer=dealer,
            table=tuple(names(deal.table)),
            hands=tuple(tuple(names(h)) for h in deal.hands),
            deck=tuple(names(deck)),
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
    return finish(state, won, "score", events)


def redo(state: MatchState, event: StoredEvent) -> tuple[MatchState, list[StoredEvent]] | None:
    """The change an event of the log records (a join or claim, a play, an early ending, a
    rematch offer) made again;
    None for an event that only follows from one (a deal, a score, an ending the change
    itself brought)."""
    if isinstance(event, SeatJoined):
        # The log is the authority: a claim it holds was checked when it was made.
        return join(state, event.seat, event.name, state.seats[event.seat].claim)
    if isinstance(event, RematchOffered):
        return offer_rematch(state, event.match_id)
    if isinstance(event, CardPlayed):
        move = Move.of(NAME.index(event.card), [NAME.index(c) for c in event.capture])
        if event.auto:
            return time_out(state, move)
        return play(state, event.seat, move)
    if isinstance(event, MatchFinished) and state.status != "finished":
        return _ended(state, event.winner, event.reason)
    return None


def replay(initial: MatchState, events: Sequence[StoredEvent]) -> MatchState:
    """Re-apply the changes of an event log to the match as it was created."""
    state = initial
    for event in events:
        redone = redo(state, event)
        if redone is not None:
            state = redone[0]
    return state


def ai_to_play(state: MatchState) -> int | None:
    """The AI seat whose turn it is, if any."""
    if state.status != "active" or state.turn is None:
        return None
    return state.turn if state.seats[state.turn].kind == "ai" else None


def hand_shown(state: MatchState, seat: int) -> bool:
    """Whether everyone sees ``seat``'s cards: an AI seat's once dealt, under the rules
    option ``reveal_ai_hands`` (training)."""
    return (
        state.seats[seat].kind == "ai" and state.rules.reveal_ai_hands and state.status != "waiting"
    )


def human_to_play(state: MatchState) -> int | None:
    """The human seat whose turn it is, if any."""
    if state.status != "active" or state.turn is None:
        return None
    return state.turn if state.seats[state.turn].kind == "human" else None


def on_the_clock(state: MatchState) -> int | None:
    """The human seat to play when the match has a turn clock: its time is running."""
    return human_to_play(state) if state.rules.turn_seconds is not None else None


def timed(state: MatchState) -> int | None:
    """The human seat to play whose turn has a deadline it is shown: on a turn clock, or
    in a rated match, whose turn without a clock ends, lost, at the idle limit."""
    return human_to_play(state) if state.rules.turn_seconds is not None or state.rated else None
