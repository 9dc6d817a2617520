"""What one seat, or a spectator, may know of a match (docs/api.md, "The match view")."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from scopa.contract.rules import Rules, rules_view
from scopa.contract.scoring import DealScore, deal_score_view
from scopa.domain.cards import IS_DIAMOND, NAME, SETTEBELLO, names
from scopa.domain.deal import team_of
from scopa.domain.events import EndReason
from scopa.domain.match import (
    MatchState,
    Seat,
    SeatKind,
    Status,
    current_deal,
    hand_shown,
    is_sweep,
    timed,
)
from scopa.domain.moves import Move


class SeatView(msgspec.Struct, frozen=True):
    seat: Annotated[int, Meta(description="The seat's number, 0 to players - 1, in turn order")]
    team: Annotated[
        int,
        Meta(
            description="The seat's team: with 2 players the seat itself; with 4, seats 0 "
            "and 2 are team 0 and seats 1 and 3 team 1"
        ),
    ]
    kind: Annotated[
        SeatKind,
        Meta(
            description="Who plays the seat: `human` (whoever holds its token), `open` "
            "(waiting for someone to join), `reserved` (kept for a player of the match "
            "before, until its old seat token, or its player's player token, claims it) or "
            "`ai` (the server)"
        ),
    ]
    level: Annotated[
        str | None, Meta(description="The level of an `ai` seat; null for the other kinds")
    ]
    hand_count: Annotated[int, Meta(description="How many cards the seat holds")]
    name: Annotated[
        str | None,
        Meta(description="The display name of a human seat; null for AI seats and unnamed seats"),
    ]
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(
            description="An AI seat's cards under the rules option reveal_ai_hands (null while "
            "waiting, [] once finished); null for every other seat"
        ),
    ]
    player: Annotated[
        str | None,
        Meta(
            description="The handle of the registered player holding the seat (a reserved "
            "seat: who may claim it); null for anonymous, open and AI seats"
        ),
    ] = None


class Fairness(msgspec.Struct, frozen=True):
    """How anyone can check that nobody knew the cards: the seed committed to at create,
    revealed at the end."""

    commitment: Annotated[
        str,
        Meta(
            pattern="^[0-9a-f]{64}$",
            description="Lowercase hex SHA-256 of the secret seed written in ASCII decimal",
        ),
    ]
    seed: Annotated[
        int | None,
        Meta(description="The secret seed once the match is finished, null until then"),
    ]


class TeamView(msgspec.Struct, frozen=True):
    team: Annotated[int, Meta(description="The team's number, 0 or 1")]
    captured: Annotated[
        tuple[str, ...],
        Meta(
            description="Every card in the team's pile this deal, in the order taken: the "
            "cards taken and the cards that took them; the leftovers join the pile of the "
            "last capturer when the deal ends"
        ),
    ]
    captured_count: Annotated[int, Meta(description="How many cards `captured` holds")]
    diamonds: Annotated[
        int, Meta(description="How many diamonds (the Italian coins) the pile holds")
    ]
    settebello: Annotated[
        bool, Meta(description="Whether the pile holds the 7 of diamonds, the settebello")
    ]
    sweeps: Annotated[int, Meta(description="Sweeps (scope) the team has scored this deal")]


class MoveView(msgspec.Struct, frozen=True):
    card: Annotated[str, Meta(description="The card played from the hand")]
    capture: Annotated[
        tuple[str, ...],
        Meta(description="The table cards it takes; empty: the card stays on the table"),
    ]
    sweep: Annotated[
        bool,
        Meta(
            description="Whether the move scores a sweep point: it takes the whole table, "
            "and is neither the deal's last play nor, under `ace_sweeps: no_point`, an ace"
        ),
    ]


class MatchView(msgspec.Struct, frozen=True):
    id: Annotated[str, Meta(description="The match's id (unguessable), as in its URL")]
    version: Annotated[
        int,
        Meta(
            description="0 at create, one more with each accepted change (a move, human or "
            'AI, or a join); the ETag is this number in quotes ("17"), and If-Match names it'
        ),
    ]
    status: Annotated[
        Status,
        Meta(
            description="`waiting` while a seat is open, `active` while it is played, "
            "`finished` once a team has won"
        ),
    ]
    rules: Annotated[
        Rules, Meta(description="The match's rules, every option with its default filled in")
    ]
    you: Annotated[
        int | None, Meta(description="The seat of the caller's token; null for a spectator")
    ]
    seats: Annotated[tuple[SeatView, ...], Meta(description="Every seat, by seat number")]
    teams: Annotated[
        tuple[TeamView, ...], Meta(description="Both teams' piles this deal, by team number")
    ]
    deal: Annotated[
        int,
        Meta(description="The deal in play, from 1; 0 while waiting; the last one once finished"),
    ]
    dealer: Annotated[
        int | None, Meta(description="The seat that dealt this deal; null while waiting")
    ]
    turn: Annotated[
        int | None,
        Meta(description="The seat to play; null while waiting and once finished"),
    ]
    deck_count: Annotated[
        int,
        Meta(description="Cards left in the stock: 40 while waiting, 0 once finished"),
    ]
    table: Annotated[
        tuple[str, ...],
        Meta(description="The cards face up on the table, in the order they arrived"),
    ]
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(
            description="The cards of the caller's seat in the order dealt (`[]` once "
            "finished); null for a spectator"
        ),
    ]
    legal_moves: Annotated[
        tuple[MoveView, ...],
        Meta(
            description="On the caller's turn, one entry for each distinct choice of card "
            "and cards taken; empty otherwise"
        ),
    ]
    scores: Annotated[
        tuple[int, ...],
        Meta(description="Each team's match points after the finished deals, by team"),
    ]
    deal_scores: Annotated[
        tuple[DealScore, ...], Meta(description="The scoring of every finished deal, in order")
    ]
    winner: Annotated[
        int | None, Meta(description="The team that won, once finished; null until then")
    ]
    end_reason: Annotated[
        EndReason | None,
        Meta(
            description="null unless finished; then score (a side reached the target), "
            "resigned, timeout, aborted, expired or abandoned"
        ),
    ]
    turn_deadline: Annotated[
        str | None,
        Meta(
            description="When the time of the human seat to play runs out (RFC 3339, UTC, "
            "milliseconds), if the match has a turn clock or is rated (a rated turn without "
            "a clock lasts the idle limit, and its passing loses); else null",
            examples=["2026-12-01T10:00:05.250Z"],
        ),
    ]
    seeded: Annotated[
        bool,
        Meta(
            description="True when the creator gave the seed or the decks, and so may know "
            "every card"
        ),
    ]
    fairness: Annotated[
        Fairness | None,
        Meta(description="The seed's commitment and, once finished, the seed; null if seeded"),
    ]
    rematch: Annotated[
        str | None, Meta(description="The id of the rematch offered after this match, or null")
    ]
    last_seq: Annotated[int, Meta(description="The seq of the match's latest event (0 before any)")]
    rated: Annotated[
        bool,
        Meta(description="Whether the players' ratings change when the match finishes"),
    ] = False


@functools.lru_cache(maxsize=4096)
def commitment(seed: int) -> str:
    """What the view shows of a secret seed before the end: its SHA-256, so that once it is
    revealed anyone can check it is the one the match was dealt from. Kept for the
    matches in play: every view of every move shows it."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


def fairness(state: MatchState) -> Fairness | None:
    if state.seeded or state.seed is None:
        return None
    revealed = state.seed if state.status == "finished" else None
    return Fairness(commitment(state.seed), revealed)


def _shown_hand(state: MatchState, seat: int) -> tuple[str, ...] | None:
    """An AI seat's cards, for everyone, when the rules reveal them (training)."""
    if not hand_shown(state, seat):
        return None
    if state.status == "finished":
        return ()
    return tuple(names(state.hands[seat]))


def _seat_view(state: MatchState, i: int, s: Seat) -> SeatView:
    return SeatView(
        seat=i,
        team=team_of(i, state.players),
        kind=s.kind,
        level=s.level,
        hand_count=len(state.hands[i]),
        name=s.name,
        hand=_shown_hand(state, i),
        player=s.player,
    )


def seat_moves(state: MatchState, seat: int | None) -> tuple[MoveView, ...]:
    """The seat's legal moves on its turn, in wire form; empty otherwise."""
    if seat is None or state.turn != seat or state.status != "active":
        return ()
    deal = current_deal(state)
    return tuple(_move_view(deal.table, m, deal.is_sweep(m)) for m in deal.legal_moves())


def move_view(state: MatchState, move: Move) -> MoveView:
    """``move`` of the seat to play in wire form, with whether it scores a sweep."""
    return _move_view(state.table, move, is_sweep(state, move))


def _move_view(table: Sequence[int], move: Move, sweep: bool) -> MoveView:
    return MoveView(NAME[move.card], tuple(NAME[c] for c in move.taken_from(table)), sweep)


def match_view(
    match_id: str, state: MatchState, seat: int | None, *, deadline: float | None = None
) -> MatchView:
    """The match as ``seat`` sees it; ``None`` is a spectator, who sees no hand.

    ``deadline`` (unix seconds) is when the match's next moment comes; it is shown as the
    turn's deadline only while a human seat is on the clock."""
    finished = state.status == "finished"
    return MatchView(
        id=match_id,
        version=state.version,
        status=state.status,
        rules=rules_view(state.rules),
        you=seat,
        seats=tuple(_seat_view(state, i, s) for i, s in enumerate(state.seats)),
        teams=tuple(
            TeamView(
                team=t,
                captured=tuple(names(pile)),
                captured_count=len(pile),
                diamonds=sum(IS_DIAMOND[c] for c in pile),
                settebello=SETTEBELLO in pile,
                sweeps=state.sweeps[t],
            )
            for t, pile in enumerate(state.piles)
        ),
        deal=state.deal,
        dealer=state.dealer,
        turn=state.turn,
        # A match that ended before its deal did shows the deal as it stood.
        deck_count=len(state.stock),
        table=tuple(names(state.table)),
        hand=None if seat is None else () if finished else tuple(names(state.hands[seat])),
        legal_moves=seat_moves(state, seat),
        scores=state.scores,
        deal_scores=tuple(map(deal_score_view, state.deal_scores)),
        winner=state.winner,
        end_reason=state.end_reason,
        turn_deadline=(
            rfc3339(deadline) if deadline is not None and timed(state) is not None else None
        ),
        seeded=state.seeded,
        fairness=fairness(state),
        rematch=state.rematch,
        last_seq=state.seq,
        rated=state.rated,
    )


def rfc3339(moment: float) -> str:
    """``2026-12-01T10:00:05.250Z``: UTC, cut to the millisecond (so never late)."""
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.removesuffix("+00:00") + "Z"
