"""What happens in a match, as recorded (with every hand) and as one viewer may see it.

Stored events keep the dealt hands of every seat so that the log alone replays the match;
``for_viewer`` gives a seat its own cards only, and a spectator none.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.scoring import TeamDealScore

# How a match ended: a side reached the target, or one of the ways a match ends early.
EndReason = Literal["score", "resigned", "timeout", "aborted", "expired", "abandoned"]


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    seq: int


class Redeal(Event, frozen=True, tag="redeal"):
    deal: int
    table: tuple[str, ...]


class DealStarted(Event, frozen=True, tag="deal_started"):
    deal: int
    dealer: int
    table: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    hands: tuple[tuple[str, ...], ...]
    deck_count: int


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: int
    card: str
    capture: tuple[str, ...]
    sweep: bool
    auto: Annotated[
        bool,
        msgspec.Meta(description="True when the server played for the seat, as its time ran out"),
    ] = False


class LeftoversTaken(Event, frozen=True, tag="leftovers_taken"):
    team: int | None
    cards: tuple[str, ...]


class DealScored(Event, frozen=True, tag="deal_scored"):
    deal: int
    teams: tuple[TeamDealScore, ...]
    scores: tuple[int, ...]


class MatchFinished(Event, frozen=True, tag="match_finished"):
    winner: int | None
    scores: tuple[int, ...]
    reason: Annotated[
        EndReason,
        msgspec.Meta(
            description="How the match ended: score (a side reached the target), resigned, "
            "timeout, aborted, expired or abandoned"
        ),
    ] = "score"


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    seat: int


StoredEvent = (
    Redeal
    | DealStarted
    | CardsDealt
    | CardPlayed
    | LeftoversTaken
    | DealScored
    | MatchFinished
    | SeatJoined
)


class DealStartedView(Event, frozen=True, tag="deal_started"):
    deal: int
    dealer: int
    table: tuple[str, ...]
    hand: tuple[str, ...] | None


class CardsDealtView(Event, frozen=True, tag="cards_dealt"):
    hand: tuple[str, ...] | None
    deck_count: int


EventView = (
    Redeal
    | DealStartedView
    | CardsDealtView
    | CardPlayed
    | LeftoversTaken
    | DealScored
    | MatchFinished
    | SeatJoined
)


def for_viewer(event: StoredEvent, seat: int | None) -> EventView:
    """The event as ``seat`` may see it (None: a spectator, who sees no hand)."""
    if isinstance(event, DealStarted):
        return DealStartedView(
            seq=event.seq,
            deal=event.deal,
            dealer=event.dealer,
            table=event.table,
            hand=None if seat is None else event.hands[seat],
        )
    if isinstance(event, CardsDealt):
        return CardsDealtView(
            seq=event.seq,
            hand=None if seat is None else event.hands[seat],
            deck_count=event.deck_count,
        )
    return event
