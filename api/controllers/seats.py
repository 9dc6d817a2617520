"""Seats: taking an open seat."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post

from api.controllers.params import (
    SEAT_TOKEN,
    MatchId,
    SeatNumber,
    SecretIdempotencyKey,
    Service,
    identify,
)
from api.openapi import RATE_LIMIT_HEADERS, problems
from api.parsing import decode_body, fingerprint, idempotency_key, json_body
from api.ratelimit import JOINS
from api.schemas import JoinRequest
from service.matches import Joined


class SeatController(Controller):
    path = "/v1/matches/{match_id:str}/seats/{seat:int}"
    tags = ["seats"]
    security = SEAT_TOKEN

    @post(
        "/join",
        operation_id="joinSeat",
        summary="Take an open seat; the answer holds its token",
        description="Takes an `open` seat, which becomes `human`: no body, or an empty "
        "object, and no token needed. The answer holds the seat's secret token. Taking the "
        "last open seat makes the match active and deals it. Joins per client address "
        "per minute are limited (429).",
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
        key: SecretIdempotencyKey = None,
    ) -> Joined:
        await identify(request, service, match_id)
        body = await request.body()
        # No body and an empty object are the same request.
        if not body.strip():
            digest = fingerprint({})
        else:
            json_body(request)
            digest = decode_body(body, JoinRequest)[1]
        return await service.join(match_id, seat, idempotency_key(key, secret=True), digest)
