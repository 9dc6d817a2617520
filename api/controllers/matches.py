"""Matches: create, read one, and the lobby of matches waiting for players."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.params import QueryParameter

from api.controllers.params import SEAT_TOKEN, IdempotencyKey, MatchId, Service, identify
from api.openapi import RATE_LIMIT_HEADERS, problems
from api.parsing import bearer, decode_body, etag, idempotency_key, json_body, query_integers
from api.ratelimit import CREATE
from api.schemas import CreateMatch, setup_of
from domain.views import MatchView
from service.ids import CURSOR_PATTERN
from service.matches import Created, Lobby

AnyRequest = Request[Any, Any, Any]


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
            ResponseHeader(name="Location", description="The match's URL", documentation_only=True),
            *RATE_LIMIT_HEADERS,
        ],
        opt={"limits": (CREATE,)},
    )
    async def create(
        self,
        request: AnyRequest,
        service: Service,
        key: IdempotencyKey = None,
    ) -> Response[Created]:
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
        responses=problems(400, 401, 404, 503),
        response_headers=[
            ResponseHeader(name="ETag", description='"<version>"', documentation_only=True)
        ],
    )
    async def read(
        self, request: AnyRequest, service: Service, match_id: MatchId
    ) -> Response[MatchView]:
        view = service.view(await identify(request, service, match_id))
        return Response(view, headers={"ETag": etag(view.version)})

    @get(
        operation_id="listMatches",
        summary="The lobby: matches with open seats, oldest first",
        responses=problems(400, 401, 503),
    )
    async def lobby(
        self,
        request: AnyRequest,
        service: Service,
        status: Annotated[
            Literal["waiting"], QueryParameter(description="Only waiting matches are listed")
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
        return await service.lobby(limit, cursor)
