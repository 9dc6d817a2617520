"""Request parameters several controllers share, documented once."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request
from litestar.datastructures import ResponseHeader
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, PathParameter, QueryParameter

from scopa.api.clients import Clients
from scopa.api.errors import ApiError
from scopa.api.parsing import IDEMPOTENCY_KEY_PATTERN, IF_MATCH_PATTERN, SECRET_KEY_PATTERN, bearer
from scopa.api.quotas import CreationQuotas, StreamLimits
from scopa.service.callers import Caller
from scopa.service.errors import InvalidToken
from scopa.service.ids import CURSOR_PATTERN
from scopa.service.services import Services

Service = NamedDependency[Services]
# The "at once" quotas (api.quotas).
Creators = NamedDependency[CreationQuotas]
Streams = NamedDependency[StreamLimits]
# Who the client is (its address), as limits and an anonymous caller's keys know it.
Addresses = NamedDependency[Clients]
# Seconds a stream stays open before the client reconnects with Last-Event-ID.
StreamSeconds = NamedDependency[float]
# The errors that mean the database does not answer (the composition root names them).
Outage = NamedDependency[tuple[type[BaseException], ...]]

IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="Replays the first successful answer to the same caller's retry with "
        "an equal body (1 to 255 printable ASCII characters, no space at either end)",
        required=False,
        schema_extra={"pattern": IDEMPOTENCY_KEY_PATTERN},
    ),
]
IfMatch = Annotated[
    str | None,
    HeaderParameter(
        name="If-Match",
        description='Change the match only at this version: "17", W/"17" or *; empty, '
        "it names no version (412)",
        required=False,
        # Published, not enforced by Litestar: a malformed If-Match is a 400 only after
        # the 404 and 401 checks.
        schema_extra={"pattern": IF_MATCH_PATTERN},
    ),
]
ETAG = ResponseHeader(name="ETag", description='"<version>"', documentation_only=True)
# On the routes whose answer holds a seat token.
SecretIdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="Replays the first successful answer, its secret tokens included, to "
        "the same caller's retry with an equal body (16 to 255 printable ASCII characters, "
        "no space at either end); from any other caller it is a new request. Send a "
        "random one (a UUID)",
        required=False,
        schema_extra={"pattern": SECRET_KEY_PATTERN},
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
# A page of a list, and where the page before it ended.
PageLimit = Annotated[int, QueryParameter(ge=1, le=100, description="Items to a page, 1 to 100")]
Cursor = Annotated[
    str | None,
    QueryParameter(
        description="next_cursor of the previous page, as it came; a cursor this server "
        "did not give out is a 400 invalid-cursor",
        required=False,
        schema_extra={"pattern": CURSOR_PATTERN},
    ),
]
SeatNumber = Annotated[int, PathParameter(description="A seat, 0 to players - 1")]
# Security requirements: a seat token, or (for spectators) none.
SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
REQUIRED_SEAT_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}]


async def identify(
    request: Request[Any, Any, Any],
    service: Services,
    match_id: str,
    *,
    query: bool = False,
    required: bool = False,
    recent: bool = False,
) -> Caller:
    """Who asks about the match, in docs/api.md's order: 404 for an unknown match, then 400 for
    an ambiguous credential, then 401 for a bad one (``query``: ``?token=`` is read)."""
    try:
        token = bearer(request, query=query)
    except (ApiError, InvalidToken):
        await service.callers.load(match_id)
        raise
    return await service.callers.caller(match_id, token, required=required, recent=recent)


# Documented on every answer holding a match view (``view_headers``).
VIEW_HEADERS = [
    ETAG,
    ResponseHeader(
        name="Cache-Control",
        description="private, no-cache: one seat's view, to be checked again before each use",
        documentation_only=True,
    ),
    ResponseHeader(
        name="Vary", description="Authorization: the view is the token's", documentation_only=True
    ),
]
