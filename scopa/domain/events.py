"""What happens in a match, as recorded: with every seat's hand.

The events keep the dealt hands of every seat, and each deck as it was dealt from, so
that the log alone replays the match. What one seat or a spectator may see of them is
the contract's (``scopa.contract.events.for_viewer``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from scopa.domain.scoring import TeamDealScore

# How a match ended: a side reached the target, or one of the ways a match ends early.
EndReason = Literal["score", "resigned", "timeout", "aborted", "expired", "abandoned"]


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    seq: int  # from 1 in each match, with no gaps


class Redeal(Event, frozen=True, tag="redeal"):
    deal: int
    table: tuple[str, ...]  # the opening table that voided the deal: three or four kings
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
    auto: bool = False  # played for the seat as its time ran out


class LeftoversTaken(Event, frozen=True, tag="leftovers_taken"):
    team: int | None  # the deal's last capturer; None when nobody captured
    cards: tuple[str, ...]


class DealScored(Event, frozen=True, tag="deal_scored"):
    deal: int
    teams: tuple[TeamDealScore, ...]
    scores: tuple[int, ...]


class MatchFinished(Event, frozen=True, tag="match_finished"):
    winner: int | None
    scores: tuple[int, ...]
    reason: EndReason = "score"


class SeatJoined(Event, frozen=True, tag="seat_joined"):
    seat: int
    name: str | None = None
    player: str | None = None  # the handle of a registered player taking it


class RematchOffered(Event, frozen=True, tag="rematch_offered"):
    match_id: str


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
