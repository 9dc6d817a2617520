"""The player's own routes, each with its player token: itself, its tokens, its matches."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, delete, get, post
from litestar.params import PathParameter, QueryParameter
from litestar.response import Stream

from scopa.api.controllers.events import (
    COME_BACK,
    HEARTBEAT,
    RETRY,
    After,
    LastEventId,
    held_stream,
    sse_stream,
)
from scopa.api.controllers.params import (
    Cursor,
    Outage,
    PageLimit,
    QueryToken,
    SecretIdempotencyKey,
    Service,
    Streams,
    StreamSeconds,
)
from scopa.api.head import is_head
from scopa.api.openapi import problems
from scopa.api.parsing import (
    bearer,
    idempotency_key,
    last_event_id,
    optional_body,
    query_integers,
)
from scopa.api.schemas import NewToken, name_of
from scopa.contract.challenges import MyChallenges
from scopa.contract.players import IssuedToken, Me, MyMatches
from scopa.service.ids import token_hash

AnyRequest = Request[Any, Any, Any]
PLAYER_TOKEN: list[dict[str, list[str]]] = [{"playerToken": []}]


class MeController(Controller):
    path = "/v1/me"
    tags = ["players"]
    security = PLAYER_TOKEN

    @get(
        operation_id="getMe",
        summary="The token's player, with its live tokens (without their secrets)",
        description="What the player's public page shows, and the id, label and last use "
        "of each of its live tokens.",
        responses=problems(400, 401, 503),
    )
    async def me(self, request: AnyRequest, service: Service) -> Me:
        player = await service.callers.player(bearer(request))
        return await service.accounts.me(player)

    @post(
        "/tokens",
        operation_id="createToken",
        summary="A new player token; the answer holds its secret, shown only here",
        description="At most 10 live tokens a player (409 too-many-tokens). To rotate a "
        "token, make a new one, then revoke the old. A retry with the player's "
        "`Idempotency-Key` and an equal body gets the same token, not a second one.",
        status_code=201,
        responses=problems(400, 401, 409, 413, 415, 422, 503),
    )
    async def new_token(
        self, request: AnyRequest, service: Service, key: SecretIdempotencyKey = None
    ) -> IssuedToken:
        player = await service.callers.player(bearer(request))
        body, digest = optional_body(request, await request.body(), NewToken)
        return await service.accounts.new_token(
            player, name_of(body.label), idempotency_key(key, secret=True), digest
        )

    @delete(
        "/tokens/{token_id:str}",
        operation_id="revokeToken",
        summary="Revoke one of the player's tokens (the one in use too)",
        description="Every server process refuses the token from the moment this answers; "
        "a stream it opened (challenges, a match's events) ends, in every process, at the "
        "latest at its next heartbeat (15 s).",
        status_code=204,
        responses=problems(400, 401, 404, 503),
    )
    async def revoke(
        self,
        request: AnyRequest,
        service: Service,
        token_id: Annotated[str, PathParameter(description="The token's id, as listed")],
    ) -> None:
        player = await service.callers.player(bearer(request))
        await service.accounts.revoke(player, token_id)

    @delete(
        operation_id="deleteMe",
        summary="Delete the player: its tokens stop working, its matches stay",
        description="Its handle is never given out again; its seats show `deleted player`. "
        "In one transaction its tokens and seat tokens stop working (401 invalid-token) "
        "and its pending challenges end: cancelled if made, declined if received. 409 "
        "player-busy while it holds a seat in a match waiting or being played.",
        status_code=204,
        responses=problems(400, 401, 409, 503),
    )
    async def delete(self, request: AnyRequest, service: Service) -> None:
        player = await service.callers.player(bearer(request))
        await service.accounts.delete(player)

    @get(
        "/matches",
        operation_id="listMyMatches",
        summary="The player's matches, newest first, a page at a time",
        description="Each with the seat the player holds, which its player token plays "
        "without the seat token; `next_cursor`, passed as `cursor`, fetches the next page.",
        responses=problems(400, 401, 503),
    )
    async def matches(
        self,
        request: AnyRequest,
        service: Service,
        status: Annotated[
            Literal["waiting", "active", "finished"] | None,
            QueryParameter(description="Only matches of this status; all when left out"),
        ] = None,
        limit: PageLimit = 20,
        cursor: Cursor = None,
    ) -> MyMatches:
        query_integers(request, "limit")
        player = await service.callers.player(bearer(request))
        return await service.tables.matches(player, status, limit, cursor)

    @get(
        "/challenges",
        operation_id="listMyChallenges",
        summary="The pending challenges to the player and from it, a page at a time",
        description="Newest first, `limit` to a page of both lists together; `next_cursor`, "
        "passed as `cursor`, fetches the next page. Open challenges are listed by "
        "listChallenges, not here.",
        responses=problems(400, 401, 503),
    )
    async def challenges(
        self, request: AnyRequest, service: Service, limit: PageLimit = 20, cursor: Cursor = None
    ) -> MyChallenges:
        query_integers(request, "limit")
        player = await service.callers.player(bearer(request))
        return await service.challenging.mine(player, limit, cursor)

    @get(
        "/challenges/stream",
        operation_id="streamMyChallenges",
        summary="News of the player's challenges as Server-Sent Events (id: its number)",
        description="A `challenge` event, its data the challenge, each time one is made to "
        "the player, or one of its challenges (made or received) is accepted, declined or "
        "withdrawn. Resume with `Last-Event-ID` (an EventSource sends it) or `after`; an "
        "EventSource passes the token as `?token=`. The stream ends after a while for the "
        "client to reconnect, and when its token is revoked or its player deleted; streams "
        "open at once per address are limited (a stream over it is only a `retry:` line).",
        media_type="text/event-stream",
        responses=problems(400, 401),
    )
    async def challenge_stream(
        self,
        request: AnyRequest,
        service: Service,
        streams: Streams,
        stream_seconds: StreamSeconds,
        outage: Outage,
        after: After = 0,
        token: QueryToken = None,
        last_id: LastEventId = None,
    ) -> Stream | Response[bytes]:
        query_integers(request, "after")
        secret = bearer(request, query=True)
        try:
            player = await service.callers.player(secret)
        except outage:
            return Response(COME_BACK, media_type="text/event-stream")
        resume = last_event_id(last_id)
        start = after if resume is None else resume
        if is_head():
            return sse_stream([RETRY])

        async def messages() -> AsyncIterator[bytes]:
            stream = service.challenging.stream(player, start, stream_seconds)
            # The stream ends with the token that opened it.
            opened_by = token_hash(secret or "")
            async for news in service.revocations.until_revoked(stream, opened_by):
                if news is None:
                    yield HEARTBEAT
                    continue
                yield b"".join(
                    b"id: %d\r\nevent: challenge\r\ndata: %s\r\n\r\n" % item for item in news
                )

        what = f"challenge stream of {player.handle}"
        return held_stream(streams, request.scope, None, messages(), what)
