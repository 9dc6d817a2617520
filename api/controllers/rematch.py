"""Rematch: play a finished match again, with the same seats."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec

from api.controllers.matches import client_address
from api.controllers.params import REQUIRED_SEAT_TOKEN, IdempotencyKey, Limiter, MatchId, Service
from api.errors import rate_limited
from api.openapi import problems
from api.parsing import bearer, idempotency_key, optional_body
from api.schemas import EmptyBody
from service.matches import Rematched


class RematchController(Controller):
    path = "/v1/matches/{match_id:str}/rematch"
    tags = ["matches"]
    security = REQUIRED_SEAT_TOKEN

    @post(
        operation_id="rematchMatch",
        summary="Play a finished match again: the first call creates the rematch (201), "
        "another seat's call claims its reserved seat in it (200)",
        status_code=201,
        responses={
            200: ResponseSpec(
                Rematched,
                description="The caller's reserved seat in the rematch, now taken",
                generate_examples=False,
            ),
            **problems(400, 401, 404, 409, 413, 415, 429, 503),
        },
        response_headers=[
            ResponseHeader(
                name="Location",
                description="The rematch's URL (on 201)",
                documentation_only=True,
            )
        ],
    )
    async def rematch(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        limiter: Limiter,
        match_id: MatchId,
        key: IdempotencyKey = None,
    ) -> Response[Rematched]:
        caller = await service.caller(match_id, bearer(request), required=True)
        # It may create a match, so it counts as a creation.
        wait = limiter.hit(client_address(request))
        if wait is not None:
            raise rate_limited(wait)
        _, digest = optional_body(request, await request.body(), EmptyBody)
        outcome = await service.rematch(caller, idempotency_key(key), digest)
        if not outcome.created:
            return Response(outcome.answer, status_code=200)
        location = f"/v1/matches/{outcome.answer.match.id}"
        return Response(outcome.answer, status_code=201, headers={"Location": location})
