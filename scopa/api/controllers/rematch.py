"""Rematch: play a finished match again, with the same seats."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, post
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec

from scopa.api.controllers.lifecycle import no_options
from scopa.api.controllers.params import (
    REQUIRED_SEAT_TOKEN,
    Creators,
    MatchId,
    SecretIdempotencyKey,
    Service,
)
from scopa.api.openapi import RATE_LIMIT_HEADERS, problems
from scopa.api.parsing import bearer, idempotency_key
from scopa.api.ratelimit import CREATE
from scopa.service.answers import Rematched


class RematchController(Controller):
    path = "/v1/matches/{match_id:str}/rematch"
    tags = ["matches"]
    security = REQUIRED_SEAT_TOKEN

    @post(
        operation_id="rematchMatch",
        summary="Play a finished match again: the first call creates the rematch (201), "
        "another seat's call claims its reserved seat in it (200)",
        description="A seat of a finished match asks for the same match again: same rules, "
        "same seats, the first deal to the seat after the last dealer. The first call "
        "creates the rematch, takes the caller's seat in it and reserves every other human "
        "seat for its player; a later call by another seat's token claims that seat. The "
        "answer holds the caller's new token. No body, or an empty object.",
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
            ),
            *RATE_LIMIT_HEADERS,
        ],
        # It may create a match, so it counts as a creation.
        opt={"limits": (CREATE,)},
    )
    async def rematch(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        creators: Creators,
        match_id: MatchId,
        key: SecretIdempotencyKey = None,
    ) -> Response[Rematched]:
        caller = await service.callers.caller(match_id, bearer(request), required=True)
        digest = await no_options(request, "rematch")
        outcome = await service.seating.rematch(
            caller, idempotency_key(key, secret=True), digest, quotas=creators.of(request.scope)
        )
        if not outcome.created:
            return Response(outcome.answer, status_code=200)
        location = f"/v1/matches/{outcome.answer.match.id}"
        return Response(outcome.answer, status_code=201, headers={"Location": location})
