"""Hints: the move an AI level would play for the caller's seat."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.params import QueryParameter

from scopa.api.controllers.params import REQUIRED_SEAT_TOKEN, MatchId, Service, identify
from scopa.api.disconnect import CLIENT_GONE, unless_gone
from scopa.api.head import Unsent, is_head
from scopa.api.metrics import hint_abandoned
from scopa.api.openapi import AI_UNAVAILABLE_503, RATE_LIMIT_HEADERS, problems
from scopa.api.ratelimit import HINTS, HINTS_PER_ADDRESS
from scopa.domain.ai import LEVELS
from scopa.service.answers import Hint


class HintController(Controller):
    path = "/v1/matches/{match_id:str}/hint"
    tags = ["hints"]
    security = REQUIRED_SEAT_TOKEN

    @get(
        operation_id="getHint",
        summary="The move the AI of a level would play for the token's seat",
        description="The move the AI of `level` would choose now for the token's seat, with "
        "its reason, from what that seat may know. Only on the seat's turn (409 otherwise). "
        "Asking changes nothing. Hints per token and per client address per minute are "
        "limited (429).",
        responses=problems(400, 401, 404, 409, 429, 503, text={503: AI_UNAVAILABLE_503}),
        response_headers=RATE_LIMIT_HEADERS,
        opt={"limits": (HINTS, HINTS_PER_ADDRESS)},
    )
    async def hint(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        match_id: MatchId,
        # Checked by the service, after the token: docs/api.md answers 401 before 400.
        level: Annotated[
            str, QueryParameter(description="The AI level", schema_extra={"enum": list(LEVELS)})
        ] = "hard",
    ) -> Response[Hint]:
        caller = await identify(request, service, match_id, required=True)
        if is_head():
            service.ai_work.check_hint(caller, level)
            return Unsent("application/json")
        hint = await unless_gone(request, service.ai_work.hint(caller, level))
        if hint is None:
            hint_abandoned()
            # No body: nobody is there to read it.
            return Response(None, status_code=CLIENT_GONE)  # type: ignore[arg-type]
        return Response(hint)
