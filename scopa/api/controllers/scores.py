"""Scores: finished deals, totals, and the tally of the deal in progress."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from scopa.api.controllers.params import SEAT_TOKEN, MatchId, Service, identify
from scopa.api.openapi import problems
from scopa.service.answers import Scores


class ScoreController(Controller):
    path = "/v1/matches/{match_id:str}/scores"
    tags = ["scores"]
    security = SEAT_TOKEN

    @get(
        operation_id="getScores",
        summary="The scoring",
        description="Each finished deal's scoring, the match points, the winner, and the "
        "deal in progress so far (`current`): each team's counts and the points it can no "
        "longer lose.",
        responses=problems(400, 401, 404, 503),
    )
    async def scores(
        self, request: Request[Any, Any, Any], service: Service, match_id: MatchId
    ) -> Scores:
        return await service.records.scores(await identify(request, service, match_id))
