"""What one seat, or a spectator, may know of a match (API.md, MatchView)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from domain.cards import IS_DIAMOND, NAME, SETTEBELLO, names
from domain.deal import team_of
from domain.match import MatchState, current_deal, is_sweep
from domain.moves import Move
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
    # The cards taken in table order, as the table and the card_played event show them.
    taken = move.capture
    return MoveView(NAME[move.card], tuple(NAME[c] for c in table if c in taken), sweep)


def match_view(match_id: str, state: MatchState, seat: int | None) -> MatchView:
    """The match as ``seat`` sees it; ``None`` is a spectator, who sees no hand."""
    players = state.players
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
        deck_count=len(state.stock) if state.status != "finished" else 0,
        table=tuple(names(state.table)),
        hand=None if seat is None else tuple(names(state.hands[seat])),
        legal_moves=seat_moves(state, seat),
        scores=state.scores,
        deal_scores=state.deal_scores,
        winner=state.winner,
    )
