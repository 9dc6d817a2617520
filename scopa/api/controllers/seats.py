"""Seats: taking an open seat, or claiming a seat a rematch reserved."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post

from scopa.api.controllers.params import (
    SEAT_TOKEN,
    Addresses,
    MatchId,
    SeatNumber,
    SecretIdempotencyKey,
    Service,
)
from scopa.api.openapi import RATE_LIMIT_HEADERS, problems
from scopa.api.parsing import bearer, idempotency_key, optional_body
from scopa.api.ratelimit import JOINS
from scopa.api.schemas import JoinRequest, name_of
from scopa.service.answers import Joined


class SeatController(Controller):
    path = "/v1/matches/{match_id:str}/seats/{seat:int}"
    tags = ["seats"]
    security = SEAT_TOKEN

    @post(
        "/join",
        operation_id="joinSeat",
        summary="Take an open seat, or claim a reserved one with the seat's token in the "
        "match before; the answer holds the new token",
        description="Takes an `open` seat, which becomes `human`: no body, an empty object, "
        "or a `name`, and no token needed. A `reserved` seat (of a rematch) is claimed with "
        "the seat's token in the match before as bearer token, or with the player token of "
        "the registered player who held it. The answer holds the seat's "
        "new secret token. Taking the last open seat makes the match active and deals it. "
        "Joins and claims per client address per minute are limited (429).",
        status_code=200,
        responses=problems(400, 401, 404, 409, 413, 415, 422, 429, 503),
        response_headers=RATE_LIMIT_HEADERS,
        opt={"limits": (JOINS,)},
    )
    async def join(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        match_id: MatchId,
        seat: SeatNumber,
        clients: Addresses,
        key: SecretIdempotencyKey = None,
    ) -> Joined:
        await service.callers.load(match_id)
        # A token here is only a claim on a reserved seat: one of another match is no 401.
        token = bearer(request)
        joining, digest = optional_body(request, await request.body(), JoinRequest)
        return await service.seating.join(
            match_id,
            seat,
            idempotency_key(key, secret=True),
            digest,
            name=name_of(joining.name),
            token=token,
            address=clients.of(request.scope),
        )
