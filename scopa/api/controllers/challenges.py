"""Challenges: made, read, accepted, declined and withdrawn, each with a player token."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, delete, get, post
from litestar.datastructures import ResponseHeader
from litestar.params import PathParameter, QueryParameter
from msgspec import UNSET

from scopa.api.controllers.me import PLAYER_TOKEN
from scopa.api.controllers.params import IdempotencyKey, Service
from scopa.api.openapi import problems
from scopa.api.parsing import (
    bearer,
    decode_body,
    idempotency_key,
    json_body,
    optional_body,
    query_integers,
)
from scopa.api.schemas import ChallengeRequest, NoOptions, rules_of
from scopa.contract.challenges import Accepted, ChallengeView, OpenChallenges

AnyRequest = Request[Any, Any, Any]
ChallengeId = Annotated[str, PathParameter(description="The challenge's id, as made")]


class ChallengeController(Controller):
    path = "/v1/challenges"
    tags = ["challenges"]

    @post(
        operation_id="createChallenge",
        summary="Challenge a player, anyone (open), or an AI level",
        description="A 2-player match offered with the challenger's rules and rated flag, "
        "open to accept until `expires_at`. One to an AI level is accepted at once: its "
        "`match` is the new match. A player's challenges a minute and pending at once are "
        "limited (429). A retry with the player's `Idempotency-Key` and an equal body makes "
        "no second challenge.",
        status_code=201,
        security=PLAYER_TOKEN,
        responses=problems(400, 401, 409, 413, 415, 422, 429, 503),
        response_headers=[
            ResponseHeader(
                name="Location", description="The challenge's URL", documentation_only=True
            )
        ],
    )
    async def create(
        self, request: AnyRequest, service: Service, key: IdempotencyKey = None
    ) -> Response[ChallengeView]:
        player = await service.callers.player(bearer(request))
        json_body(request)
        body, fingerprint = decode_body(await request.body(), ChallengeRequest)
        made = await service.challenging.create(
            player,
            None if body.opponent is UNSET else body.opponent,
            None if body.level is UNSET else body.level,
            rules_of(body.rules),
            body.rated,
            body.expires_in,
            idempotency_key(key),
            fingerprint,
        )
        return Response(made, status_code=201, headers={"Location": f"{self.path}/{made.id}"})

    @get(
        operation_id="listChallenges",
        summary="The open challenges still pending, newest first",
        description="Any player may accept one of these.",
        responses=problems(400, 503),
    )
    async def open(
        self,
        request: AnyRequest,
        service: Service,
        limit: Annotated[
            int, QueryParameter(ge=1, le=100, description="Challenges to list, 1 to 100")
        ] = 20,
    ) -> OpenChallenges:
        query_integers(request, "limit")
        return await service.challenging.open(limit)

    @get(
        "/{challenge_id:str}",
        operation_id="getChallenge",
        summary="A challenge, as it stands",
        description="Anyone may read it by its id: its status, and once accepted its match. "
        "A withdrawn challenge is gone: 404.",
        responses=problems(404, 503),
    )
    async def read(self, service: Service, challenge_id: ChallengeId) -> ChallengeView:
        return await service.challenging.view(challenge_id)

    @post(
        "/{challenge_id:str}/accept",
        operation_id="acceptChallenge",
        summary="Accept a challenge: the match is created, both seats held by their players",
        description="The challenger sits on seat 0, the acceptor on seat 1; each plays "
        "with its player token. 409 challenge-not-pending once it is accepted, declined, "
        "withdrawn or expired; not-your-challenge for a challenge to another player or "
        "one's own. A retry with the player's `Idempotency-Key` gets the first answer "
        "again.",
        status_code=200,
        security=PLAYER_TOKEN,
        responses=problems(400, 401, 404, 409, 413, 415, 503),
    )
    async def accept(
        self,
        request: AnyRequest,
        service: Service,
        challenge_id: ChallengeId,
        key: IdempotencyKey = None,
    ) -> Accepted:
        player = await service.callers.player(bearer(request))
        _, digest = optional_body(request, await request.body(), NoOptions)
        return await service.challenging.accept(player, challenge_id, idempotency_key(key), digest)

    @post(
        "/{challenge_id:str}/decline",
        operation_id="declineChallenge",
        summary="Decline a challenge made to the player",
        description="Only the player challenged declines; an open challenge is left to "
        "expire. The challenger hears of it on its challenge stream.",
        status_code=200,
        security=PLAYER_TOKEN,
        responses=problems(400, 401, 404, 409, 413, 415, 503),
    )
    async def decline(
        self, request: AnyRequest, service: Service, challenge_id: ChallengeId
    ) -> ChallengeView:
        player = await service.callers.player(bearer(request))
        optional_body(request, await request.body(), NoOptions)
        return await service.challenging.decline(player, challenge_id)

    @delete(
        "/{challenge_id:str}",
        operation_id="cancelChallenge",
        summary="Withdraw a pending challenge the player made",
        description="Only its challenger withdraws it; the player challenged hears of it "
        "on its challenge stream. From then on the challenge is gone (404 on every route "
        "naming it).",
        status_code=204,
        security=PLAYER_TOKEN,
        responses=problems(400, 401, 404, 409, 503),
    )
    async def cancel(
        self, request: AnyRequest, service: Service, challenge_id: ChallengeId
    ) -> None:
        player = await service.callers.player(bearer(request))
        await service.challenging.cancel(player, challenge_id)
