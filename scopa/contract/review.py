"""The coach's review on the wire: each card one seat played, against the expert's
choice (``scopa.domain.ai.review``), described."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from scopa.domain.ai import review as domain


class ReviewMove(msgspec.Struct, frozen=True):
    card: Annotated[str, Meta(description="The card played")]
    capture: Annotated[
        tuple[str, ...], Meta(description="The table cards it takes; empty: it stays")
    ]


class ReviewedPlay(msgspec.Struct, frozen=True):
    seq: Annotated[int, Meta(description="The seq of the play's card_played event")]
    deal: Annotated[int, Meta(description="The deal it was played in")]
    played: Annotated[ReviewMove, Meta(description="What the seat played")]
    best: Annotated[
        ReviewMove,
        Meta(description="What the expert would have played, knowing what the seat knew"),
    ]
    loss: Annotated[
        float,
        Meta(
            ge=0,
            description="How many expected deal points (the seat's team minus the other, "
            "over the rest of the deal) the play gives away against best, 2 decimals",
        ),
    ]
    reason: Annotated[str, Meta(description="Why the expert's move, in a few words")]
    auto: Annotated[
        bool, Meta(description="True when the server played the card, as the seat's time ran out")
    ]


class Review(msgspec.Struct, frozen=True):
    seat: Annotated[int, Meta(description="The seat reviewed")]
    moves: Annotated[
        tuple[ReviewedPlay, ...], Meta(description="Every card the seat played, in order")
    ]
    total_loss: Annotated[float, Meta(ge=0, description="The sum of the plays' losses")]


def review_view(review: domain.Review) -> Review:
    # Once per review read, so the generic conversion, which also checks the bounds.
    return msgspec.convert(review, Review, from_attributes=True)
