"""Players: registering one, and a player's public page."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import ResponseHeader
from litestar.params import PathParameter, QueryParameter

from scopa.api.controllers.params import Addresses, SecretIdempotencyKey, Service
from scopa.api.openapi import RATE_LIMIT_HEADERS, problems
from scopa.api.parsing import decode_body, idempotency_key, json_body, query_integers
from scopa.api.ratelimit import REGISTRATIONS
from scopa.api.schemas import RegisterPlayer, name_of
from scopa.contract.players import PlayerView, RatingHistory, Registered

Format = Literal["2p-11", "2p-21", "4p-11", "4p-21"]
Handle = Annotated[str, PathParameter(description="The player's handle, in any case")]


class PlayerController(Controller):
    path = "/v1/players"
    tags = ["players"]

    @post(
        operation_id="registerPlayer",
        summary="Register a player, or a bot; the answer holds its first secret token",
        description="A player keeps one identity across matches: a handle unique as people "
        "read it, a display name, ratings and a history. The answer holds the first player "
        "token (`scp_...`), shown only here (and to a retry from the same client address "
        "with the same `Idempotency-Key` and body); `Location` is the player's URL. "
        "Registrations per client address per minute are limited (429).",
        status_code=201,
        responses=problems(400, 409, 413, 415, 422, 429, 503),
        response_headers=[
            ResponseHeader(
                name="Location", description="The player's URL", documentation_only=True
            ),
            *RATE_LIMIT_HEADERS,
        ],
        opt={"limits": (REGISTRATIONS,)},
    )
    async def register(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        clients: Addresses,
        key: SecretIdempotencyKey = None,
    ) -> Response[Registered]:
        json_body(request)
        body, fingerprint = decode_body(await request.body(), RegisterPlayer)
        registered = await service.accounts.register(
            body.handle,
            name_of(body.name),
            body.kind,
            name_of(body.label),
            clients.of(request.scope),
            idempotency_key(key, secret=True),
            fingerprint,
        )
        return Response(
            registered,
            status_code=201,
            headers={"Location": f"{self.path}/{registered.player.handle}"},
        )

    @get(
        "/{handle:str}",
        operation_id="getPlayer",
        summary="A player's public page: name, kind, ratings, counts",
        description="Anyone may read it. 404 for no such player, or a deleted one.",
        responses=problems(404, 503),
    )
    async def read(self, service: Service, handle: Handle) -> PlayerView:
        return await service.accounts.profile(handle)

    @get(
        "/{handle:str}/ratings",
        operation_id="getRatingHistory",
        summary="A player's rating after each of its last rated matches in a format",
        description="Oldest first, for a chart. Anyone may read it; 404 for no such player.",
        responses=problems(400, 404, 503),
    )
    async def ratings(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        handle: Handle,
        format: Annotated[Format, QueryParameter(description="The format: players, then target")],
        limit: Annotated[
            int, QueryParameter(ge=1, le=500, description="Matches, the last ones, 1 to 500")
        ] = 100,
    ) -> RatingHistory:
        query_integers(request, "limit")
        return await service.accounts.rating_history(handle, format, limit)
