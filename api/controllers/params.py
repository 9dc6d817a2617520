"""Request parameters several controllers share, documented once."""

from __future__ import annotations

from typing import Annotated

from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, PathParameter, QueryParameter

from api.parsing import IDEMPOTENCY_KEY_PATTERN
from api.ratelimit import RateLimiter
from service.matches import MatchService

Service = NamedDependency[MatchService]
Limiter = NamedDependency[RateLimiter]
# Seconds a stream stays open before the client reconnects with Last-Event-ID.
StreamSeconds = NamedDependency[float]

IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="Replays the first successful answer to a retry with an equal body "
        "(1 to 255 printable ASCII characters)",
        required=False,
        schema_extra={"pattern": IDEMPOTENCY_KEY_PATTERN},
    ),
]
QueryToken = Annotated[
    str | None,
    QueryParameter(
        name="token",
        description="The seat token, for clients that cannot send headers (EventSource); "
        "the Authorization header wins when both are given",
        required=False,
    ),
]
MatchId = Annotated[str, PathParameter(description="The match's id, as create answered it")]
SeatNumber = Annotated[int, PathParameter(description="A seat, 0 to players - 1")]
# Security requirements: a seat token, or (for spectators) none.
SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
REQUIRED_SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}]


# Documented on every answer holding a match view (``view_headers``).
VIEW_HEADERS = [
    ResponseHeader(name="ETag", description='"<version>"', documentation_only=True),
    ResponseHeader(
        name="Cache-Control",
        description="private, no-cache: one seat's view, to be checked again before each use",
        documentation_only=True,
    ),
    ResponseHeader(
        name="Vary", description="Authorization: the view is the token's", documentation_only=True
    ),
]
