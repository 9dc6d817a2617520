"""What the routes of challenges answer, and what a player's challenge stream sends."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from scopa.contract.players import Moment
from scopa.contract.rules import Rules
from scopa.contract.views import MatchView


class ChallengeView(msgspec.Struct, frozen=True):
    id: Annotated[str, Meta(description="The challenge's id, as in its URL")]
    challenger: Annotated[str, Meta(description="The handle of the player who made it")]
    opponent: Annotated[
        str | None,
        Meta(description="The handle challenged; null for an open challenge or an AI level"),
    ]
    level: Annotated[
        str | None, Meta(description="The AI level challenged, which accepts at once; or null")
    ]
    rules: Annotated[Rules, Meta(description="The match's rules, every option filled in")]
    rated: Annotated[bool, Meta(description="Whether the match is rated")]
    status: Annotated[
        str,
        Meta(
            description="`pending`, then `accepted` (see `match`), `declined`, `cancelled` "
            "(withdrawn) or `expired` (pending past `expires_at`)"
        ),
    ]
    created_at: Annotated[Moment, Meta(description="When it was made")]
    expires_at: Annotated[Moment, Meta(description="When it stops being open to accept")]
    match: Annotated[
        str | None, Meta(description="The id of the match accepting it made; null until then")
    ]


class Accepted(msgspec.Struct, frozen=True):
    challenge: Annotated[ChallengeView, Meta(description="The challenge, now accepted")]
    match: Annotated[
        MatchView,
        Meta(
            description="The new match as a spectator sees it: each player plays its seat "
            "with its player token"
        ),
    ]


class MyChallenges(msgspec.Struct, frozen=True):
    incoming: Annotated[
        tuple[ChallengeView, ...],
        Meta(description="Pending challenges to the player, newest first (open ones aside)"),
    ]
    outgoing: Annotated[
        tuple[ChallengeView, ...], Meta(description="Pending challenges it made, newest first")
    ]
    next_cursor: Annotated[
        str | None,
        Meta(
            description="Pass as `cursor` for the next page (a page holds `limit` challenges, "
            "incoming and outgoing together); null on the last"
        ),
    ]


class OpenChallenges(msgspec.Struct, frozen=True):
    challenges: Annotated[
        tuple[ChallengeView, ...],
        Meta(description="Open challenges still pending, newest first: any player may accept"),
    ]
