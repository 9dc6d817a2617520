"""Ending a match early: a seat resigns, or calls off a match nobody has played yet."""

from __future__ import annotations

from typing import Any, Literal

from litestar import Controller, Request, Response, post

from scopa.api.controllers.params import (
    REQUIRED_SEAT_TOKEN,
    VIEW_HEADERS,
    IdempotencyKey,
    IfMatch,
    MatchId,
    Service,
)
from scopa.api.openapi import problems
from scopa.api.parsing import (
    bearer,
    decode_body,
    expected_version,
    fingerprint,
    idempotency_key,
    json_body,
)
from scopa.api.schemas import NoOptions
from scopa.api.view_answer import ViewAnswer
from scopa.contract.views import MatchView
from scopa.service.services import Services

AnyRequest = Request[Any, Any, Any]
ANSWERS = problems(400, 401, 404, 409, 412, 413, 415, 422, 503)


async def no_options(request: AnyRequest, operation: str) -> str:
    """No body or an empty object, else a 400; the fingerprint names the operation, so an
    Idempotency-Key reused for another one is refused like one reused with another body."""
    body = await request.body()
    if body.strip():
        json_body(request)
        decode_body(body, NoOptions)
    return fingerprint({"operation": operation})


async def ending(
    request: AnyRequest,
    service: Services,
    match_id: str,
    key: str | None,
    if_match: str | None,
    operation: Literal["resign", "abort"],
) -> Response[MatchView]:
    # As for moves: 404, 401, then 400 for the body and headers, then the rules.
    caller = await service.callers.caller(match_id, bearer(request), required=True, recent=True)
    digest = await no_options(request, operation)
    expected = expected_version(if_match)
    end = service.play.resign if operation == "resign" else service.play.abort
    view = await end(caller, expected, idempotency_key(key), digest)
    return ViewAnswer(view)


class LifecycleController(Controller):
    path = "/v1/matches/{match_id:str}"
    tags = ["matches"]
    security = REQUIRED_SEAT_TOKEN

    @post(
        "/resign",
        operation_id="resignMatch",
        summary="The token's team gives the match up; the other team wins",
        description="Ends an active match at once: `end_reason` `resigned`, the other team "
        "the winner, the deal in progress left unscored. Answers the caller's view with its "
        "ETag; honours If-Match and Idempotency-Key as moves do. 409 `match-not-active` "
        "unless the match is active.",
        status_code=200,
        responses=ANSWERS,
        response_headers=VIEW_HEADERS,
    )
    async def resign(
        self,
        request: AnyRequest,
        service: Service,
        match_id: MatchId,
        key: IdempotencyKey = None,
        if_match: IfMatch = None,
    ) -> Response[MatchView]:
        return await ending(request, service, match_id, key, if_match, "resign")

    @post(
        "/abort",
        operation_id="abortMatch",
        summary="Call the match off, nobody winning: while it waits for players, or before "
        "any human seat has played a card",
        description="For a human seat's token: ends a waiting match, or an active one in "
        "which no human seat has played a card of its own (autoplayed cards do not count), "
        "with `end_reason` `aborted` and no winner; a rated match only while it waits. "
        "409 `cannot-abort` otherwise.",
        status_code=200,
        responses=ANSWERS,
        response_headers=VIEW_HEADERS,
    )
    async def abort(
        self,
        request: AnyRequest,
        service: Service,
        match_id: MatchId,
        key: IdempotencyKey = None,
        if_match: IfMatch = None,
    ) -> Response[MatchView]:
        return await ending(request, service, match_id, key, if_match, "abort")
