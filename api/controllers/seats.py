"""Seats: taking an open seat."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, post

from api.controllers.params import SEAT_TOKEN, IdempotencyKey, MatchId, SeatNumber, Service
from api.openapi import problems
from api.parsing import bearer, idempotency_key, optional_body
from api.schemas import JoinRequest, name_of
from service.matches import Joined


class SeatController(Controller):
    path = "/v1/matches/{match_id:str}/seats/{seat:int}"
    tags = ["seats"]
    security = SEAT_TOKEN

    @post(
        "/join",
        operation_id="joinSeat",
        summary="Take an open seat, maybe naming it; the answer holds its token",
        status_code=200,
        responses=problems(400, 401, 404, 409, 413, 415, 422, 503),
    )
    async def join(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        match_id: MatchId,
        seat: SeatNumber,
        key: IdempotencyKey = None,
    ) -> Joined:
        await service.caller(match_id, bearer(request))
        joining, digest = optional_body(request, await request.body(), JoinRequest)
        return await service.join(
            match_id, seat, idempotency_key(key), digest, name=name_of(joining.name)
        )
