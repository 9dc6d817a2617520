"""What one seat, or a spectator, may know of a match (API.md, MatchView)."""

from __future__ import annotations

import hashlib
from typing import Annotated

import msgspec
from msgspec import Meta

from domain.cards import IS_DIAMOND, NAME, SETTEBELLO, names
from domain.deal import team_of
from domain.match import MatchState, Seat, legal_moves
from domain.rules import Rules
from domain.scoring import DealScore


class SeatView(msgspec.Struct, frozen=True):
    seat: int
    team: int
    kind: str
    level: str | None
    hand_count: int
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
    team: int
    captured: tuple[str, ...]
    captured_count: int
    diamonds: int
    settebello: bool
    sweeps: int


class MoveView(msgspec.Struct, frozen=True):
    card: str
    capture: tuple[str, ...]
    sweep: bool


class MatchView(msgspec.Struct, frozen=True):
    id: str
    version: int
    status: str
    rules: Rules
    you: int | None
    seats: tuple[SeatView, ...]
    teams: tuple[TeamView, ...]
    deal: int
    dealer: int | None
    turn: int | None
    deck_count: int
    table: tuple[str, ...]
    hand: tuple[str, ...] | None
    legal_moves: tuple[MoveView, ...]
    scores: tuple[int, ...]
    deal_scores: tuple[DealScore, ...]
    winner: int | None
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


def commitment(seed: int) -> str:
    """What the view shows of a secret seed before the end: its SHA-256, so that once it is
    revealed anyone can check it is the one the match was dealt from."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()


def fairness(state: MatchState) -> Fairness | None:
    if state.seeded or state.seed is None:
        return None
    revealed = state.seed if state.status == "finished" else None
    return Fairness(commitment(state.seed), revealed)


def _shown_hand(state: MatchState, seat: int, kind: str) -> tuple[str, ...] | None:
    """An AI seat's cards, for everyone, when the rules reveal them (training)."""
    if kind != "ai" or not state.rules.reveal_ai_hands or state.status == "waiting":
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
        hand=_shown_hand(state, i, s.kind),
    )


def seat_moves(state: MatchState, seat: int | None) -> tuple[MoveView, ...]:
    """The seat's legal moves on its turn, in wire form; empty otherwise."""
    if seat is None or state.turn != seat:
        return ()
    return tuple(
        MoveView(NAME[m.card], tuple(names(m.capture)), m.sweep) for m in legal_moves(state)
    )


def match_view(match_id: str, state: MatchState, seat: int | None) -> MatchView:
    """The match as ``seat`` sees it; ``None`` is a spectator, who sees no hand."""
    return MatchView(
        id=match_id,
        version=state.version,
        status=state.status,
        rules=state.rules,
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
        deck_count=len(state.stock) if state.status != "finished" else 0,
        table=tuple(names(state.table)),
        hand=None if seat is None else tuple(names(state.hands[seat])),
        legal_moves=seat_moves(state, seat),
        scores=state.scores,
        deal_scores=state.deal_scores,
        winner=state.winner,
        seeded=state.seeded,
        fairness=fairness(state),
        rematch=state.rematch,
        last_seq=state.seq,
    )
