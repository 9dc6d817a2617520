"""Matches: create, read one, and the lobby of matches waiting for players or being played."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter

from api.controllers.params import (
    SEAT_TOKEN,
    VIEW_HEADERS,
    IdempotencyKey,
    Limiter,
    MatchId,
    Service,
)
from api.errors import rate_limited
from api.openapi import problems
from api.parsing import (
    IF_NONE_MATCH_PATTERN,
    bearer,
    decode_body,
    idempotency_key,
    json_body,
    not_modified,
    query_integers,
    view_headers,
)
from api.schemas import CreateMatch, setup_of
from domain.views import MatchView
from service.ids import CURSOR_PATTERN
from service.matches import Created, Lobby

AnyRequest = Request[Any, Any, Any]


def client_address(request: AnyRequest) -> str:
    return request.client.host if request.client else "unknown"


class MatchController(Controller):
    path = "/v1/matches"
    tags = ["matches"]
    security = SEAT_TOKEN

    @post(
        operation_id="createMatch",
        summary="Create a match",
        status_code=201,
        responses=problems(400, 401, 413, 415, 422, 429, 503),
        response_headers=[
            ResponseHeader(name="Location", description="The match's URL", documentation_only=True)
        ],
    )
    async def create(
        self,
        request: AnyRequest,
        service: Service,
        limiter: Limiter,
        key: IdempotencyKey = None,
    ) -> Response[Created]:
        wait = limiter.hit(client_address(request))
        if wait is not None:
            raise rate_limited(wait)
        await service.check_token(bearer(request))
        json_body(request)
        body, fingerprint = decode_body(await request.body(), CreateMatch)
        created = await service.create(setup_of(body), idempotency_key(key), fingerprint)
        return Response(
            created, status_code=201, headers={"Location": f"{self.path}/{created.match.id}"}
        )

    @get(
        "/{match_id:str}",
        operation_id="getMatch",
        summary="The match as the caller may see it",
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
        caller = await service.caller(match_id, bearer(request))
        version = caller.record.state.version
        headers = view_headers(version)
        if not_modified(if_none_match, version):
            return Response(None, status_code=304, headers=headers)
        return Response(service.view(caller), headers=headers)

    @get(
        operation_id="listMatches",
        summary="The lobby: matches with open seats, oldest first, or being played, newest first",
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
        limit: Annotated[int, QueryParameter(ge=1, le=100)] = 20,
        cursor: Annotated[
            str | None,
            QueryParameter(
                description="next_cursor of the previous page",
                required=False,
                schema_extra={"pattern": CURSOR_PATTERN},
            ),
        ] = None,
    ) -> Lobby:
        query_integers(request, "limit")
        await service.check_token(bearer(request))
        return await service.lobby(limit, cursor, status)
