"""What one seat, or a spectator, may know of a match (API.md, MatchView)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import msgspec

from domain.cards import IS_DIAMOND, NAME, SETTEBELLO, names
from domain.deal import team_of
from domain.events import EndReason
from domain.match import MatchState, legal_moves, on_the_clock
from domain.rules import Rules
from domain.scoring import DealScore


class SeatView(msgspec.Struct, frozen=True):
    seat: int
    team: int
    kind: str
    level: str | None
    hand_count: int


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
    end_reason: Annotated[
        EndReason | None,
        msgspec.Meta(
            description="null unless finished; then score (a side reached the target), "
            "resigned, timeout, aborted, expired or abandoned"
        ),
    ]
    turn_deadline: Annotated[
        str | None,
        msgspec.Meta(
            description="When the time of the human seat to play runs out (RFC 3339, UTC, "
            "milliseconds), if the match has a turn clock; else null",
            examples=["2026-12-01T10:00:05.250Z"],
        ),
    ]


def seat_moves(state: MatchState, seat: int | None) -> tuple[MoveView, ...]:
    """The seat's legal moves on its turn, in wire form; empty otherwise."""
    if seat is None or state.turn != seat:
        return ()
    return tuple(
        MoveView(NAME[m.card], tuple(names(m.capture)), m.sweep) for m in legal_moves(state)
    )


def match_view(
    match_id: str, state: MatchState, seat: int | None, *, deadline: float | None = None
) -> MatchView:
    """The match as ``seat`` sees it; ``None`` is a spectator, who sees no hand.

    ``deadline`` (unix seconds) is when the match's next moment comes; it is shown as the
    turn's deadline only while a human seat is on the clock."""
    players = state.players
    finished = state.status == "finished"
    return MatchView(
        id=match_id,
        version=state.version,
        status=state.status,
        rules=state.rules,
        you=seat,
        seats=tuple(
            SeatView(i, team_of(i, players), s.kind, s.level, len(state.hands[i]))
            for i, s in enumerate(state.seats)
        ),
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
        deal_scores=state.deal_scores,
        winner=state.winner,
        end_reason=state.end_reason,
        turn_deadline=(
            _rfc3339(deadline) if deadline is not None and on_the_clock(state) is not None else None
        ),
    )


def _rfc3339(moment: float) -> str:
    """``2026-12-01T10:00:05.250Z``: UTC, cut to the millisecond (so never late)."""
    text = datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")
    return text.removesuffix("+00:00") + "Z"
