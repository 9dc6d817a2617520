"""What the routes of players answer: a player, its tokens, its matches, the leaderboard."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from scopa.contract.views import MatchView

Moment = Annotated[str, Meta(description="RFC 3339, UTC, to the millisecond")]


class RatingView(msgspec.Struct, frozen=True):
    format: Annotated[
        str, Meta(description="`2p-11`, `2p-21`, `4p-11` or `4p-21`: players, then target")
    ]
    rating: Annotated[float, Meta(description="Glicko-2 rating on the familiar scale (1500 new)")]
    deviation: Annotated[
        float, Meta(description="How unsure the rating is (350 new); the lower, the surer")
    ]
    volatility: Annotated[float, Meta(description="How erratic the player's results are")]
    games: Annotated[int, Meta(description="Rated matches played in the format")]
    provisional: Annotated[
        bool, Meta(description="Whether the deviation is still above 110: too few games yet")
    ]


class CountsView(msgspec.Struct, frozen=True):
    played: Annotated[
        int,
        Meta(description="Finished matches it held a seat in that a side won (not aborted)"),
    ]
    won: Annotated[int, Meta(description="Those its side won")]
    lost: Annotated[
        int, Meta(description="Those its side lost (a resignation, forfeit or timeout too)")
    ]


class PlayerView(msgspec.Struct, frozen=True):
    handle: Annotated[str, Meta(description="The player's unique handle, as registered")]
    name: Annotated[str, Meta(description="The display name its seats show")]
    kind: Annotated[str, Meta(description="`human` or `bot`")]
    joined_at: Annotated[Moment, Meta(description="When the player registered")]
    ratings: Annotated[
        tuple[RatingView, ...], Meta(description="Its rating in each format it has played rated")
    ]
    counts: Annotated[CountsView, Meta(description="Its finished matches, rated or not")]


class TokenView(msgspec.Struct, frozen=True):
    id: Annotated[str, Meta(description="The token's id, to revoke it by")]
    label: Annotated[str, Meta(description="The label given when it was made")]
    created_at: Annotated[Moment, Meta(description="When it was made")]
    last_used_at: Annotated[
        Moment | None,
        Meta(description="When it was last used (updated at most once a minute); null: never"),
    ]


class IssuedToken(msgspec.Struct, frozen=True):
    id: Annotated[str, Meta(description="The token's id, to revoke it by")]
    label: Annotated[str, Meta(description="The label given when it was made")]
    created_at: Annotated[Moment, Meta(description="When it was made")]
    last_used_at: Annotated[None, Meta(description="null: a new token was never used")]
    token: Annotated[
        str,
        Meta(
            description="The secret, for `Authorization: Bearer <token>`: shown only in this "
            "answer, the server keeps its hash"
        ),
    ]


class Registered(msgspec.Struct, frozen=True):
    player: Annotated[PlayerView, Meta(description="The new player")]
    token: Annotated[IssuedToken, Meta(description="Its first token, with the secret")]


class Me(msgspec.Struct, frozen=True):
    player: Annotated[PlayerView, Meta(description="The token's player")]
    tokens: Annotated[
        tuple[TokenView, ...], Meta(description="Its live tokens, oldest first, without secrets")
    ]


class MyMatch(msgspec.Struct, frozen=True):
    seat: Annotated[int, Meta(description="The seat the player holds in the match")]
    match: Annotated[MatchView, Meta(description="The match, as a spectator sees it")]


class MyMatches(msgspec.Struct, frozen=True):
    matches: Annotated[tuple[MyMatch, ...], Meta(description="The player's matches, newest first")]
    next_cursor: Annotated[
        str | None, Meta(description="Pass as `cursor` for the next page; null on the last")
    ]


class Standing(msgspec.Struct, frozen=True):
    rank: Annotated[int, Meta(description="1 for the best of the list")]
    handle: Annotated[str, Meta(description="The player's handle")]
    name: Annotated[str, Meta(description="Its display name")]
    kind: Annotated[str, Meta(description="`human` or `bot`")]
    rating: Annotated[float, Meta(description="Its rating in the format")]
    deviation: Annotated[float, Meta(description="The rating's deviation")]
    games: Annotated[int, Meta(description="Rated matches played in the format")]


class Leaderboard(msgspec.Struct, frozen=True):
    format: Annotated[str, Meta(description="The format ranked")]
    provisional: Annotated[
        bool, Meta(description="Whether the list is of provisional players (deviation over 110)")
    ]
    players: Annotated[tuple[Standing, ...], Meta(description="Best first, ties by handle")]
    next_cursor: Annotated[
        str | None, Meta(description="Pass as `cursor` for the next page; null on the last")
    ]


class RatingPoint(msgspec.Struct, frozen=True):
    match: Annotated[str, Meta(description="The id of the rated match")]
    at: Annotated[Moment, Meta(description="When it finished")]
    rating: Annotated[float, Meta(description="The player's rating once it was rated")]


class RatingHistory(msgspec.Struct, frozen=True):
    handle: Annotated[str, Meta(description="The player's handle")]
    format: Annotated[str, Meta(description="The format")]
    games: Annotated[
        tuple[RatingPoint, ...],
        Meta(description="Its last rated matches in the format, oldest first: a chart's points"),
    ]
