"""What happens in a match, as one viewer may see it on the wire.

The stored events (``scopa.domain.events``) keep every seat's hand; ``for_viewer`` gives
a seat its own cards only, and a spectator none. The record of a finished match
(``every_hand``) shows every seat's cards.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta
from msgspec.structs import astuple

from scopa.contract.scoring import TeamDealScore, team_score_view
from scopa.domain import events as domain
from scopa.domain.events import EndReason

# The record's projection of a dealt packet: each seat's cards, by seat.
Hands = Annotated[
    tuple[tuple[str, ...], ...] | None,
    Meta(
        description="Each seat's cards, by seat: in the record of a finished match only, "
        "null everywhere else"
    ),
]


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    seq: Annotated[int, Meta(description="The event's number in its match: from 1, with no gaps")]


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
        Meta(description="True when the server played for the seat, as its time ran out"),
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
        Meta(
            description="How the match ended: score (a side reached the target), resigned, "
            "timeout, aborted, expired or abandoned"
        ),
    ] = "score"


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    seat: Annotated[int, Meta(description="The open seat that someone took")]
    name: Annotated[str | None, Meta(description="The seat's display name, or null")] = None
    player: Annotated[
        str | None,
        Meta(description="The handle of the registered player who took it, or null"),
    ] = None


class RematchOffered(Event, frozen=True, tag="rematch_offered"):
    match_id: Annotated[
        str, Meta(description="The next match, whose seats wait for this one's players")
    ]


class RedealView(Event, frozen=True, tag="redeal"):
    deal: Annotated[int, Meta(description="The deal that is dealt again")]
    table: Annotated[
        tuple[str, ...],
        Meta(description="The table cards that voided it (three or four kings among them)"),
    ]


class DealStartedView(Event, frozen=True, tag="deal_started"):
    deal: Annotated[int, Meta(description="The deal's number, from 1")]
    dealer: Annotated[int, Meta(description="The seat that dealt")]
    table: Annotated[tuple[str, ...], Meta(description="The four cards dealt face up")]
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(description="The first cards of the caller's seat; null for a spectator"),
    ]
    hands: Hands = None


class CardsDealtView(Event, frozen=True, tag="cards_dealt"):
    hand: Annotated[
        tuple[str, ...] | None,
        Meta(description="The new cards of the caller's seat; null for a spectator"),
    ]
    deck_count: Annotated[int, Meta(description="Cards left in the stock after this packet")]
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


# The events a viewer sees as they are stored: each has a twin here with the same
# fields in the same order (tests/unit/test_contract_twins.py), so the stored values
# make the wire one as they stand.
SAME_FOR_EVERYONE: dict[type[domain.StoredEvent], type[EventView]] = {
    domain.CardPlayed: CardPlayed,
    domain.LeftoversTaken: LeftoversTaken,
    domain.MatchFinished: MatchFinished,
    domain.SeatJoined: SeatJoined,
    domain.RematchOffered: RematchOffered,
}


def for_viewer(
    event: domain.StoredEvent, seat: int | None, *, every_hand: bool = False
) -> EventView:
    """The event as ``seat`` may see it (None: a spectator, who sees no hand); with
    ``every_hand``, as the record of a finished match shows it: every seat's cards."""
    twin = SAME_FOR_EVERYONE.get(type(event))
    if twin is not None:
        return twin(*astuple(event))
    if isinstance(event, domain.DealStarted):
        return DealStartedView(
            seq=event.seq,
            deal=event.deal,
            dealer=event.dealer,
            table=event.table,
            hand=None if seat is None else event.hands[seat],
            hands=event.hands if every_hand else None,
        )
    if isinstance(event, domain.CardsDealt):
        return CardsDealtView(
            seq=event.seq,
            hand=None if seat is None else event.hands[seat],
            deck_count=event.deck_count,
            hands=event.hands if every_hand else None,
        )
    if isinstance(event, domain.Redeal):
        # The deck is the record's, in its own list: never in an event.
        return RedealView(seq=event.seq, deal=event.deal, table=event.table)
    assert isinstance(event, domain.DealScored)
    return DealScored(event.seq, event.deal, tuple(map(team_score_view, event.teams)), event.scores)
