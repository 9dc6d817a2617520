"""Moves: a seat's play."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, post
from litestar.params import HeaderParameter

from api.controllers.params import (
    REQUIRED_SEAT_TOKEN,
    VIEW_HEADERS,
    IdempotencyKey,
    MatchId,
    Service,
)
from api.openapi import problems
from api.parsing import (
    IF_MATCH_PATTERN,
    bearer,
    decode_body,
    expected_version,
    idempotency_key,
    json_body,
    view_headers,
)
from api.schemas import MoveRequest
from domain.cards import parse_card, parse_cards
from domain.views import MatchView


class MoveController(Controller):
    path = "/v1/matches/{match_id:str}/moves"
    tags = ["moves"]
    security = REQUIRED_SEAT_TOKEN

    @post(
        operation_id="playMove",
        summary="Play a card for the token's seat",
        status_code=200,
        responses=problems(400, 401, 404, 409, 412, 413, 415, 422, 503),
        response_headers=VIEW_HEADERS,
    )
    async def play(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        match_id: MatchId,
        key: IdempotencyKey = None,
        if_match: Annotated[
            str | None,
            HeaderParameter(
                name="If-Match",
                description='Play only at this version: "17", W/"17" or *',
                required=False,
                # Published, not enforced by Litestar: a malformed If-Match is a 400 only
                # after the 404 and 401 checks.
                schema_extra={"pattern": IF_MATCH_PATTERN},
            ),
        ] = None,
    ) -> Response[MatchView]:
        # API.md's order: 404, 401, then 400 for the body and headers, then the rules.
        caller = await service.caller(match_id, bearer(request), required=True, recent=True)
        json_body(request)
        move, fingerprint = decode_body(await request.body(), MoveRequest)
        expected = expected_version(if_match)
        capture = None if move.capture is None else parse_cards(move.capture)
        view = await service.play(
            caller, parse_card(move.card), capture, expected, idempotency_key(key), fingerprint
        )
        return Response(view, headers=view_headers(view.version))
