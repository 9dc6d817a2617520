"""Records: a finished match whole, every hand and the seed shown."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from api.controllers.params import SEAT_TOKEN, MatchId, Service
from api.openapi import problems
from api.parsing import bearer
from service.matches import Record


class RecordController(Controller):
    path = "/v1/matches/{match_id:str}/record"
    tags = ["matches"]
    security = SEAT_TOKEN

    @get(
        operation_id="getRecord",
        summary="A finished match whole: its seed, every deck and every seat's cards",
        responses=problems(401, 404, 409, 503),
    )
    async def record(
        self, request: Request[Any, Any, Any], service: Service, match_id: MatchId
    ) -> Record:
        return await service.record(await service.caller(match_id, bearer(request)))
