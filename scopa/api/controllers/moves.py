"""Moves: a seat's play."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, post

from scopa.api.controllers.params import (
    REQUIRED_SEAT_TOKEN,
    VIEW_HEADERS,
    IdempotencyKey,
    IfMatch,
    MatchId,
    Service,
    identify,
)
from scopa.api.openapi import problems
from scopa.api.parsing import (
    decode_body,
    expected_version,
    idempotency_key,
    json_body,
)
from scopa.api.schemas import MoveRequest
from scopa.api.view_answer import ViewAnswer
from scopa.contract.views import MatchView
from scopa.domain.cards import parse_card, parse_cards


class MoveController(Controller):
    path = "/v1/matches/{match_id:str}/moves"
    tags = ["moves"]
    security = REQUIRED_SEAT_TOKEN

    @post(
        operation_id="playMove",
        summary="Play a card for the token's seat",
        description="Plays `card` from the seat's hand, taking exactly the table cards in "
        "`capture`. Checked in this order, the first failure answering: 404, 401, 400 (body "
        "or `If-Match` malformed), 422 or 409 for a reused or running `Idempotency-Key`, 409 "
        "when the match is not active or it is not the seat's turn, 412 for a stale "
        "`If-Match`, 422 for an illegal move (the problem lists the legal moves). A refused "
        "move changes nothing. The answer is the mover's view; AI seats then play by "
        "themselves, as the events or a later read show.",
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
        if_match: IfMatch = None,
    ) -> Response[MatchView]:
        # docs/api.md's order: 404, 401, then 400 for the body and headers, then the rules.
        caller = await identify(request, service, match_id, required=True, recent=True)
        json_body(request)
        move, fingerprint = decode_body(await request.body(), MoveRequest)
        expected = expected_version(if_match)
        capture = None if move.capture is None else parse_cards(move.capture)
        view = await service.play.play(
            caller, parse_card(move.card), capture, expected, idempotency_key(key), fingerprint
        )
        return ViewAnswer(view)
