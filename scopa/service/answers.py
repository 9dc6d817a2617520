"""What the match use cases answer, kept apart from how they decide it: each a value
the API sends as it is (its descriptions are the contract's) or, for ``Rematch``, keeps
whole for an idempotent retry."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from scopa.contract.events import EventView
from scopa.contract.scoring import DealScore, Tally
from scopa.contract.views import MatchView


class SeatToken(msgspec.Struct, frozen=True):
    seat: Annotated[int, Meta(description="A human seat")]
    token: Annotated[
        str,
        Meta(
            description="The seat's secret bearer token, for `Authorization: Bearer <token>`; "
            "the server keeps only its hash"
        ),
    ]


class Created(msgspec.Struct, frozen=True):
    match: Annotated[MatchView, Meta(description="The new match, as a spectator sees it")]
    tokens: Annotated[
        tuple[SeatToken, ...],
        Meta(
            description="One token for each `human` seat, by seat; an `open` seat's token "
            "comes from join"
        ),
    ]


class Joined(msgspec.Struct, frozen=True):
    seat: Annotated[int, Meta(description="The seat taken, now of kind `human`")]
    token: Annotated[
        str, Meta(description="Its secret bearer token, for `Authorization: Bearer <token>`")
    ]


class Scores(msgspec.Struct, frozen=True):
    scores: Annotated[
        tuple[int, ...], Meta(description="Each team's match points after the finished deals")
    ]
    deal_scores: Annotated[
        tuple[DealScore, ...], Meta(description="The scoring of every finished deal, in order")
    ]
    winner: Annotated[
        int | None, Meta(description="The team that won, once finished; null until then")
    ]
    current: Annotated[
        Tally | None,
        Meta(description="The deal in progress so far; null while waiting and once finished"),
    ]


class Hint(msgspec.Struct, frozen=True):
    card: Annotated[str, Meta(description="The card to play")]
    capture: Annotated[
        tuple[str, ...],
        Meta(description="The table cards to take with it; empty: it stays on the table"),
    ]
    sweep: Annotated[bool, Meta(description="Whether the move scores a sweep point")]
    level: Annotated[str, Meta(description="The AI level whose choice this is")]
    reason: Annotated[str, Meta(description="Why that level plays it, in a few words")]


class Lobby(msgspec.Struct, frozen=True):
    matches: Annotated[
        tuple[MatchView, ...],
        Meta(description="Spectator views of matches with an open seat, oldest first"),
    ]
    next_cursor: Annotated[
        str | None,
        Meta(description="The `cursor` of the next page; null on the last page"),
    ]


class Rematched(msgspec.Struct, frozen=True):
    match: Annotated[MatchView, Meta(description="The rematch, as a spectator sees it")]
    seat: Annotated[int, Meta(description="The caller's seat in the rematch")]
    token: Annotated[str, Meta(description="The seat token of that seat in the rematch")]


class Rematch(msgspec.Struct, frozen=True):
    """A rematch call's outcome, kept whole for an idempotent retry: ``created`` tells the
    first call (which made the match) from a claim of a reserved seat."""

    created: bool
    answer: Rematched


class Record(msgspec.Struct, frozen=True):
    match: Annotated[MatchView, Meta(description="The finished match, as a spectator sees it")]
    seed: Annotated[
        int | None,
        Meta(
            description="The secret seed the match was dealt from, as in fairness; null when seeded"
        ),
    ]
    decks: Annotated[
        tuple[tuple[str, ...], ...],
        Meta(
            description="Every deck, top card first, in the order dealt, voided deals "
            "included; [] for a match never dealt"
        ),
    ]
    first_dealer: Annotated[
        int | None,
        Meta(description="The first dealer as named at create or by a rematch; null when drawn"),
    ]
    events: Annotated[
        tuple[EventView, ...],
        Meta(description="Every event, deal_started and cards_dealt with every seat's hands"),
    ]
