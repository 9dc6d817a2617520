"""Records: a finished match whole, every hand and the seed shown."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from scopa.api.controllers.params import SEAT_TOKEN, MatchId, Service, identify
from scopa.api.openapi import problems
from scopa.service.answers import Record


class RecordController(Controller):
    path = "/v1/matches/{match_id:str}/record"
    tags = ["matches"]
    security = SEAT_TOKEN

    @get(
        operation_id="getRecord",
        summary="A finished match whole: its seed, every deck and every seat's cards",
        description="For anyone, once the match is finished (409 before): the view, the "
        "secret seed (null when seeded), every deck as dealt from and every event with every "
        "seat's hands, enough to replay the match from nothing else.",
        responses=problems(400, 401, 404, 409, 503),
    )
    async def record(
        self, request: Request[Any, Any, Any], service: Service, match_id: MatchId
    ) -> Record:
        return await service.records.record(await identify(request, service, match_id))
