"""What happens in a match, as recorded (with every hand) and as one viewer may see it.

Stored events keep the dealt hands of every seat so that the log alone replays the match;
``for_viewer`` gives a seat its own cards only, and a spectator none.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from domain.scoring import TeamDealScore

# How a match ended: a side reached the target, or one of the ways a match ends early.
EndReason = Literal["score", "resigned", "timeout", "aborted", "expired", "abandoned"]


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    seq: Annotated[int, Meta(description="The event's number in its match: from 1, with no gaps")]


class Redeal(Event, frozen=True, tag="redeal"):
    deal: Annotated[int, Meta(description="The deal that is dealt again")]
    table: Annotated[
        tuple[str, ...],
        Meta(description="The table cards that voided it (three or four kings among them)"),
    ]


class DealStarted(Event, frozen=True, tag="deal_started"):
    deal: int
    dealer: int
    table: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    hands: tuple[tuple[str, ...], ...]
    deck_count: int


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: Annotated[int, Meta(description="The seat that played")]
    card: Annotated[str, Meta(description="The card it played")]
    capture: Annotated[
        tuple[str, ...],
        Meta(description="The table cards it took; empty: the card stayed on the table"),
    ]
    sweep: Annotated[bool, Meta(description="Whether the play scored a sweep point")]
    auto: Annotated[
        bool,
        msgspec.Meta(description="True when the server played for the seat, as its time ran out"),
    ] = False


class LeftoversTaken(Event, frozen=True, tag="leftovers_taken"):
    team: Annotated[
        int | None,
        Meta(
            description="The team that made the deal's last capture and takes the cards; "
            "null when nobody captured in the deal"
        ),
    ]
    cards: Annotated[
        tuple[str, ...], Meta(description="The cards left on the table when the deal ended")
    ]


class DealScored(Event, frozen=True, tag="deal_scored"):
    deal: Annotated[int, Meta(description="The deal scored")]
    teams: Annotated[
        tuple[TeamDealScore, ...],
        Meta(description="Each team's counts and points, by team number"),
    ]
    scores: Annotated[tuple[int, ...], Meta(description="Each team's match points after this deal")]


class MatchFinished(Event, frozen=True, tag="match_finished"):
    winner: Annotated[int | None, Meta(description="The team that won")]
    scores: Annotated[tuple[int, ...], Meta(description="Each team's final match points")]
    reason: Annotated[
        EndReason,
        msgspec.Meta(
            description="How the match ended: score (a side reached the target), resigned, "
            "timeout, aborted, expired or abandoned"
        ),
    ] = "score"


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    seat: Annotated[int, Meta(description="The open seat that someone took")]


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
    deal: Annotated[int, Meta(description="The deal's number, from 1")]
    dealer: Annotated[int, Meta(description="The seat that dealt")]
    table: Annotated[tuple[str, ...], Meta(description="The four cards dealt face up")]
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(description="The first cards of the caller's seat; null for a spectator"),
    ]


class CardsDealtView(Event, frozen=True, tag="cards_dealt"):
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(description="The new cards of the caller's seat; null for a spectator"),
    ]
    deck_count: Annotated[int, Meta(description="Cards left in the stock after this packet")]


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
