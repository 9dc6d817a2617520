"""The player's own routes, each with its player token: itself, its tokens, its matches."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, delete, get, post
from litestar.params import PathParameter, QueryParameter

from scopa.api.controllers.params import Service
from scopa.api.openapi import problems
from scopa.api.parsing import bearer, optional_body, query_integers
from scopa.api.schemas import NewToken, name_of
from scopa.contract.players import IssuedToken, Me, MyMatches
from scopa.service.ids import CURSOR_PATTERN

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
        "token, make a new one, then revoke the old.",
        status_code=201,
        responses=problems(400, 401, 409, 413, 415, 503),
    )
    async def new_token(self, request: AnyRequest, service: Service) -> IssuedToken:
        player = await service.callers.player(bearer(request))
        body, _ = optional_body(request, await request.body(), NewToken)
        return await service.accounts.new_token(player, name_of(body.label))

    @delete(
        "/tokens/{token_id:str}",
        operation_id="revokeToken",
        summary="Revoke one of the player's tokens (the one in use too)",
        description="Every server process refuses the token from the moment this answers.",
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
        "409 player-busy while it holds a seat in a match waiting or being played.",
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
        limit: Annotated[
            int, QueryParameter(ge=1, le=100, description="Matches to a page, 1 to 100")
        ] = 20,
        cursor: Annotated[
            str | None,
            QueryParameter(
                description="next_cursor of the previous page",
                required=False,
                schema_extra={"pattern": CURSOR_PATTERN},
            ),
        ] = None,
    ) -> MyMatches:
        query_integers(request, "limit")
        player = await service.callers.player(bearer(request))
        return await service.tables.matches(player, status, limit, cursor)
