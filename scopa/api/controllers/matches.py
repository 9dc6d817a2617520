"""Matches: create, read one, and the lobby of matches waiting for players or being played."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter

from scopa.api.controllers.params import (
    SEAT_TOKEN,
    VIEW_HEADERS,
    Addresses,
    Creators,
    Cursor,
    MatchId,
    PageLimit,
    SecretIdempotencyKey,
    Service,
    identify,
)
from scopa.api.openapi import RATE_LIMIT_HEADERS, problems
from scopa.api.parsing import (
    IF_NONE_MATCH_PATTERN,
    bearer,
    decode_body,
    idempotency_key,
    json_body,
    not_modified,
    query_integers,
    view_headers,
)
from scopa.api.ratelimit import CREATE
from scopa.api.schemas import CreateMatch, setup_of
from scopa.api.view_answer import ViewAnswer
from scopa.contract.views import MatchView
from scopa.service.answers import Created, Lobby

AnyRequest = Request[Any, Any, Any]


class MatchController(Controller):
    path = "/v1/matches"
    tags = ["matches"]
    security = SEAT_TOKEN

    @post(
        operation_id="createMatch",
        summary="Create a match",
        description="Creates a match of 2 or 4 seats (`human`, `open` or `ai`) with optional "
        "rules, seed, decks and first dealer. The answer holds the spectator view and one "
        "secret token per `human` seat, shown only here (and to the same caller's retry "
        "with the same `Idempotency-Key` and body); `Location` is the match's URL. The "
        "match is dealt at once unless a seat is open; AI seats play by themselves. Per "
        "client address: creations per minute, matches waiting at once and matches of AI "
        "seats only being played at once are limited (429).",
        status_code=201,
        responses=problems(400, 401, 413, 415, 422, 429, 503),
        response_headers=[
            ResponseHeader(name="Location", description="The match's URL", documentation_only=True),
            *RATE_LIMIT_HEADERS,
        ],
        opt={"limits": (CREATE,)},
    )
    async def create(
        self,
        request: AnyRequest,
        service: Service,
        creators: Creators,
        clients: Addresses,
        key: SecretIdempotencyKey = None,
    ) -> Response[Created]:
        token = bearer(request)
        await service.callers.check_token(token)
        player = await service.callers.player_of(token)
        json_body(request)
        body, fingerprint = decode_body(await request.body(), CreateMatch)
        key = idempotency_key(key, secret=True)
        created = await service.seating.create(
            setup_of(body),
            key,
            fingerprint,
            address=clients.of(request.scope),
            token=token,
            quotas=creators.of(request.scope),
            player=player,
        )
        return Response(
            created, status_code=201, headers={"Location": f"{self.path}/{created.match.id}"}
        )

    @get(
        "/{match_id:str}",
        operation_id="getMatch",
        summary="The match as the caller may see it",
        description="With a seat's token: the match as that seat sees it, its hand and, on "
        "its turn, its legal moves. Without one: a spectator's view, every hand hidden. The "
        "ETag is the version, for `If-Match` on a move, and `If-None-Match` naming it "
        "answers 304 with no body.",
        responses={
            304: ResponseSpec(
                None, description="If-None-Match names the current version: nothing changed"
            ),
            **problems(400, 401, 404, 503),
        },
        response_headers=VIEW_HEADERS,
    )
    async def read(
        self,
        request: AnyRequest,
        service: Service,
        match_id: MatchId,
        if_none_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-None-Match",
                description='304 when it names the current version: "17", W/"17", a '
                "comma-separated list of them, or *",
                required=False,
                # Published, not enforced by Litestar: malformed is a 400 after 404 and 401.
                schema_extra={"pattern": IF_NONE_MATCH_PATTERN},
            ),
        ] = None,
    ) -> Response[MatchView | None]:
        caller = await identify(request, service, match_id)
        version = caller.record.state.version
        if not_modified(if_none_match, version):
            return Response(None, status_code=304, headers=view_headers(version))
        # A Response[MatchView]; the declared union is the 304's, for the document.
        return ViewAnswer(await service.records.view(caller))  # type: ignore[return-value]

    @get(
        operation_id="listMatches",
        summary="The lobby: matches with open seats, oldest first, or being played, newest first",
        description="Spectator views of the matches that wait for a player, oldest first, "
        "or (`status=active`) of the matches being played, newest first; "
        "`limit` to a page; `next_cursor`, passed as `cursor`, fetches the next page.",
        responses=problems(400, 401, 503),
    )
    async def lobby(
        self,
        request: AnyRequest,
        service: Service,
        status: Annotated[
            Literal["waiting", "active"],
            QueryParameter(
                description="waiting: matches with an open seat, oldest first; active: "
                "matches being played, newest first"
            ),
        ] = "waiting",
        limit: PageLimit = 20,
        cursor: Cursor = None,
    ) -> Lobby:
        query_integers(request, "limit")
        await service.callers.check_token(bearer(request))
        return await service.lobby.lobby(limit, cursor, status)
