"""What happens in a match, as recorded (with every hand) and as one viewer may see it.

Stored events keep the dealt hands of every seat, and each deck as it was dealt from, so
that the log alone replays the match; ``for_viewer`` gives a seat its own cards only, and a
spectator none. The record of a finished match (``every_hand``) shows every seat's cards.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.scoring import TeamDealScore

# The record's projection of a dealt packet: each seat's cards, by seat.
Hands = Annotated[
    tuple[tuple[str, ...], ...] | None,
    msgspec.Meta(
        description="Each seat's cards, by seat: in the record of a finished match only, "
        "null everywhere else"
    ),
]


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    seq: int


class Redeal(Event, frozen=True, tag="redeal"):
    deal: int
    table: tuple[str, ...]
    deck: tuple[str, ...] = ()  # the voided deck as dealt from; () if stored before it was kept


class DealStarted(Event, frozen=True, tag="deal_started"):
    deal: int
    dealer: int
    table: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    deck: tuple[str, ...] = ()  # the deck as dealt from; () if stored before it was kept


class CardsDealt(Event, frozen=True, tag="cards_dealt"):
    hands: tuple[tuple[str, ...], ...]
    deck_count: int


class CardPlayed(Event, frozen=True, tag="card_played"):
    seat: int
    card: str
    capture: tuple[str, ...]
    sweep: bool


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


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    seat: int
    name: Annotated[str | None, msgspec.Meta(description="The seat's display name, or null")] = None


class RematchOffered(Event, frozen=True, tag="rematch_offered"):
    match_id: Annotated[
        str, msgspec.Meta(description="The next match, whose seats wait for this one's players")
    ]


StoredEvent = (
    Redeal
    | DealStarted
    | CardsDealt
    | CardPlayed
    | LeftoversTaken
    | DealScored
    | MatchFinished
    | SeatJoined
    | RematchOffered
)


class RedealView(Event, frozen=True, tag="redeal"):
    deal: int
    table: tuple[str, ...]


class DealStartedView(Event, frozen=True, tag="deal_started"):
    deal: int
    dealer: int
    table: tuple[str, ...]
    hand: tuple[str, ...] | None
    hands: Hands = None


class CardsDealtView(Event, frozen=True, tag="cards_dealt"):
    hand: tuple[str, ...] | None
    deck_count: int
    hands: Hands = None


EventView = (
    RedealView
    | DealStartedView
    | CardsDealtView
    | CardPlayed
    | LeftoversTaken
    | DealScored
    | MatchFinished
    | SeatJoined
    | RematchOffered
)


def for_viewer(event: StoredEvent, seat: int | None, *, every_hand: bool = False) -> EventView:
    """The event as ``seat`` may see it (None: a spectator, who sees no hand); with
    ``every_hand``, as the record of a finished match shows it: every seat's cards."""
    if isinstance(event, DealStarted):
        return DealStartedView(
            seq=event.seq,
            deal=event.deal,
            dealer=event.dealer,
            table=event.table,
            hand=None if seat is None else event.hands[seat],
            hands=event.hands if every_hand else None,
        )
    if isinstance(event, CardsDealt):
        return CardsDealtView(
            seq=event.seq,
            hand=None if seat is None else event.hands[seat],
            deck_count=event.deck_count,
            hands=event.hands if every_hand else None,
        )
    if isinstance(event, Redeal):
        # The deck is the record's, in its own list: never in an event.
        return RedealView(seq=event.seq, deal=event.deal, table=event.table)
    return event
