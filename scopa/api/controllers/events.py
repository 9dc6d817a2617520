"""Events: long-poll and Server-Sent Events, each viewer seeing what its seat may see."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import Stream
from litestar.types import Scope

from scopa.api.controllers.params import (
    SEAT_TOKEN,
    MatchId,
    Outage,
    QueryToken,
    Service,
    Streams,
    StreamSeconds,
    identify,
)
from scopa.api.head import is_head
from scopa.api.openapi import problems
from scopa.api.parsing import (
    LAST_EVENT_ID_PATTERN,
    MAX_SEQ,
    bearer,
    last_event_id,
    query_integers,
)
from scopa.api.quotas import StreamLimits
from scopa.contract.events import EventView
from scopa.service.feed import MAX_WAIT, EventPage
from scopa.service.ids import is_player_token, token_hash

log = logging.getLogger(__name__)

After = Annotated[
    int, QueryParameter(ge=0, le=MAX_SEQ, description="Only events with a greater seq")
]
LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        description="Resume after this seq (wins over after)",
        required=False,
        schema_extra={"pattern": LAST_EVENT_ID_PATTERN},
    ),
]
# EventSource retries after a dropped stream; 2 s keeps reconnects gentle and prompt.
RETRY_MS = 2000
# An EventSource gives up for good on any status but 200 and 204: a stream that cannot
# be served now says when to come back, in a 200 that ends at once.
COME_BACK = f"retry: {RETRY_MS}\n\n".encode()
# Every stream starts by saying how soon to come back after it ends.
RETRY = f"retry: {RETRY_MS}\r\n\r\n".encode()
HEARTBEAT = b": still here\r\n\r\n"
# What the browser's EventSource needs from a stream, and what stops proxies buffering it.
STREAM_HEADERS = {
    "Cache-Control": "no-cache",
    "Connection": "keep-alive",
    "X-Accel-Buffering": "no",
}
_FINISHED = ResponseSpec(
    None,
    description="The match is finished and nothing follows the position: an EventSource "
    "stops reconnecting",
)


def sse_message(event: EventView) -> bytes:
    """One event as a Server-Sent Events message; the feed makes it once for each kind of
    viewer and every stream of that kind writes the same bytes."""
    tag = type(event).__struct_config__.tag
    return b"id: %d\r\nevent: %s\r\ndata: %s\r\n\r\n" % (
        event.seq,
        str(tag).encode(),
        msgspec.json.encode(event),
    )


def sse_stream(chunks: AsyncIterator[bytes] | list[bytes]) -> Stream:
    return Stream(chunks, media_type="text/event-stream", headers=STREAM_HEADERS)


def held_stream(
    streams: StreamLimits,
    scope: Scope,
    match_id: str | None,
    chunks: AsyncIterator[bytes],
    what: str,
) -> Stream:
    """A stream of ``chunks`` after the ``retry:`` line, held against the "at once" caps
    from its first message on: one the caps refuse ends after that line, which the answer
    starts with (an EventSource comes back)."""

    async def messages() -> AsyncIterator[bytes]:
        yield RETRY
        try:
            async with streams.open(scope, match_id) as allowed:
                if not allowed:
                    return
                async for chunk in chunks:
                    yield chunk
        except Exception:
            # The answer has started: no problem details now. Ending the stream sends
            # the client back with Last-Event-ID, to find the database again or a 503.
            log.warning("%s broke off", what, exc_info=True)

    return sse_stream(messages())


class EventController(Controller):
    path = "/v1/matches/{match_id:str}/events"
    tags = ["events"]
    security = SEAT_TOKEN

    @get(
        operation_id="listEvents",
        summary="Events after a seq, holding up to wait seconds for one",
        description="The events after `after`, as the caller may see them (a seat's own "
        "cards, no hand for a spectator), at most 500 a page. With `wait` the call holds "
        "until there is one or the seconds run out. To follow a match, ask again after the "
        "last seq received. Long polls (`wait` above 0) open at once per client address are "
        "limited (429).",
        responses=problems(400, 401, 404, 429, 503),
    )
    async def page(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        streams: Streams,
        match_id: MatchId,
        after: After = 0,
        wait: Annotated[
            float, QueryParameter(ge=0, le=MAX_WAIT, description="Seconds to hold for an event")
        ] = 0,
        token: QueryToken = None,
    ) -> EventPage:
        query_integers(request, "after")
        caller = await identify(request, service, match_id, query=True)
        if is_head() or not wait:
            return await service.records.events(caller, after, 0)
        async with streams.long_poll(request.scope):
            return await service.records.events(caller, after, wait)

    @get(
        "/stream",
        operation_id="streamEvents",
        summary="The same events as Server-Sent Events (id: seq, event: type, data: JSON)",
        description="The events of listEvents as they happen, one message each, from "
        "`Last-Event-ID` (sent by a reconnecting EventSource) or else `after`. An "
        "EventSource cannot send headers: pass the token as `?token=`. The stream ends "
        "after `match_finished`, or after a while for the client to reconnect. Streams open "
        "at once per client address (long polls included) and per match are limited: a "
        "stream over a limit is answered with only a `retry:` line, as in an outage.",
        media_type="text/event-stream",
        responses={204: _FINISHED, **problems(400, 401, 404)},
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        streams: Streams,
        stream_seconds: StreamSeconds,
        outage: Outage,
        match_id: MatchId,
        after: After = 0,
        token: QueryToken = None,
        last_id: LastEventId = None,
    ) -> Stream | Response[bytes]:
        query_integers(request, "after")
        try:
            caller = await identify(request, service, match_id, query=True)
        except outage:
            return Response(COME_BACK, media_type="text/event-stream")
        resume = last_event_id(last_id)
        start = after if resume is None else resume
        if is_head():
            return sse_stream([RETRY])
        state = caller.record.state
        if state.status == "finished" and start >= state.seq:
            return Response(b"", status_code=204)
        secret = bearer(request, query=True)
        opened_by = token_hash(secret) if secret and is_player_token(secret) else None

        async def messages() -> AsyncIterator[bytes]:
            batches: AsyncIterator[Sequence[bytes] | None] = service.records.stream(
                caller, start, stream_seconds, sse_message
            )
            if opened_by is not None:
                # A player token's stream ends with the token (a seat token is the seat's
                # for good).
                batches = service.revocations.until_revoked(batches, opened_by)
            async for batch in batches:
                yield HEARTBEAT if batch is None else b"".join(batch)

        return held_stream(
            streams, request.scope, match_id, messages(), f"event stream of match {match_id}"
        )
