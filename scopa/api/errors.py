"""Every failure as RFC 9457 problem details, from one exception handler.

Each failure has its own stable ``type`` URI; clients branch on it, not on ``detail``.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from msgspec import UNSET

from scopa.api.schemas import InvalidParam, Problem
from scopa.api.wording import expected, reason
from scopa.contract.views import MoveView
from scopa.domain.errors import (
    CannotAbort,
    CardNotationError,
    InvalidMove,
    InvalidSetup,
    MatchNotActive,
    NoSuchSeat,
    NotYourTurn,
    SeatNotOpen,
)
from scopa.service.errors import (
    AiUnavailable,
    Busy,
    ChallengeNotFound,
    ChallengeNotPending,
    IdempotencyKeyInFlight,
    IdempotencyKeyReused,
    InvalidCursor,
    InvalidToken,
    MatchNotFinished,
    MatchNotFound,
    MoveRefused,
    NotYourChallenge,
    PlayerNotFound,
    SameOrigin,
    StaleVersion,
    TokenNotFound,
    UnknownLevel,
)
from scopa.service.limits import QuotaExceeded
from scopa.service.ports import HandleTaken, PlayerBusy, PlayerGone, TooManyTokens

log = logging.getLogger(__name__)

# How Litestar says a required parameter was left out; its detail is not echoed (it
# quotes the URL), the parameter is named instead.
_MISSING = re.compile(r"Missing required (\w+) parameter '([^']+)'")

PROBLEM_BASE = "https://scopa.example/problems/"
PROBLEM_JSON = "application/problem+json"
# Long enough for a database to fail over or restart, short enough for a bot to wait.
RETRY_AFTER_UNAVAILABLE = 2
# A worker starting or taking over: a few seconds; a review then may be kept already.
RETRY_AFTER_AI = 5


@dataclass(frozen=True)
class Kind:
    slug: str
    status: int
    title: str

    @property
    def type(self) -> str:
        return PROBLEM_BASE + self.slug


VALIDATION = Kind("validation-error", 400, "The request does not fit the schema")
AMBIGUOUS = Kind("ambiguous-request", 400, "The request can be read more than one way")
INVALID_SETUP = Kind("invalid-setup", 422, "The match cannot be set up that way")
NOT_FOUND = Kind("not-found", 404, "No such resource")
NO_SUCH_SEAT = Kind("no-such-seat", 404, "No such seat in this match")
INVALID_TOKEN = Kind("invalid-token", 401, "Missing or invalid seat token")
METRICS_TOKEN = Kind("metrics-token", 401, "Missing or invalid metrics token")
MATCH_NOT_ACTIVE = Kind("match-not-active", 409, "The match is not being played")
MATCH_NOT_FINISHED = Kind("match-not-finished", 409, "The match is not finished")
NOT_YOUR_TURN = Kind("not-your-turn", 409, "It is not this seat's turn")
SEAT_NOT_OPEN = Kind("seat-not-open", 409, "The seat is not open")
CANNOT_ABORT = Kind("cannot-abort", 409, "The match can no longer be aborted")
HANDLE_TAKEN = Kind("handle-taken", 409, "That handle, or one read as it, is taken")
TOO_MANY_TOKENS = Kind("too-many-tokens", 409, "The player holds as many tokens as it may")
PLAYER_BUSY = Kind("player-busy", 409, "The player holds a seat in a match not yet over")
CHALLENGE_NOT_PENDING = Kind("challenge-not-pending", 409, "The challenge is no longer pending")
NOT_YOUR_CHALLENGE = Kind("not-your-challenge", 409, "The challenge is another player's")
SAME_ORIGIN = Kind("same-origin", 409, "A player from the same address holds a seat here")
STALE_VERSION = Kind("stale-version", 412, "The match has changed since that version")
ILLEGAL_MOVE = Kind("illegal-move", 422, "That move is not allowed")
KEY_REUSED = Kind("idempotency-key-reused", 422, "Idempotency-Key reused with another body")
KEY_IN_FLIGHT = Kind("idempotency-key-in-flight", 409, "A request with this key is running")
UNKNOWN_LEVEL = Kind("unknown-level", 400, "No AI level of that name")
INVALID_CURSOR = Kind("invalid-cursor", 400, "The cursor is not valid")
RATE_LIMITED = Kind("rate-limited", 429, "Too many requests from this client; slow down")
PAYLOAD_TOO_LARGE = Kind("payload-too-large", 413, "The request body is too large")
HEADERS_TOO_LARGE = Kind("headers-too-large", 431, "The request's headers are too large")
UNSUPPORTED_MEDIA_TYPE = Kind("unsupported-media-type", 415, "The body must be application/json")
METHOD_NOT_ALLOWED = Kind("method-not-allowed", 405, "Method not allowed on this route")
BUSY = Kind("busy", 503, "The match is changing too fast; try again")
UNAVAILABLE = Kind("database-unavailable", 503, "The database does not answer; try again")
AI_UNAVAILABLE = Kind("ai-unavailable", 503, "No AI process took the work in time; try again")
INTERNAL = Kind("internal-error", 500, "The server failed")
# A status of the framework's that none of the above covers; the status says which.
HTTP_ERROR = Kind("http-error", 400, "The request was refused")

# Most specific first: MoveRefused before InvalidMove and so on.
_DOMAIN: Sequence[tuple[type[Exception], Kind]] = (
    (MatchNotFound, NOT_FOUND),
    (PlayerNotFound, NOT_FOUND),
    (ChallengeNotFound, NOT_FOUND),
    (ChallengeNotPending, CHALLENGE_NOT_PENDING),
    (NotYourChallenge, NOT_YOUR_CHALLENGE),
    (TokenNotFound, NOT_FOUND),
    (HandleTaken, HANDLE_TAKEN),
    (TooManyTokens, TOO_MANY_TOKENS),
    (PlayerBusy, PLAYER_BUSY),
    (SameOrigin, SAME_ORIGIN),
    (NoSuchSeat, NO_SUCH_SEAT),
    (InvalidToken, INVALID_TOKEN),
    (PlayerGone, INVALID_TOKEN),  # the token's player was deleted while it asked
    (InvalidSetup, INVALID_SETUP),
    (MatchNotActive, MATCH_NOT_ACTIVE),
    (MatchNotFinished, MATCH_NOT_FINISHED),
    (NotYourTurn, NOT_YOUR_TURN),
    (SeatNotOpen, SEAT_NOT_OPEN),
    (CannotAbort, CANNOT_ABORT),
    (StaleVersion, STALE_VERSION),
    (InvalidMove, ILLEGAL_MOVE),  # illegal or ambiguous
    (IdempotencyKeyReused, KEY_REUSED),
    (IdempotencyKeyInFlight, KEY_IN_FLIGHT),
    (UnknownLevel, UNKNOWN_LEVEL),
    (InvalidCursor, INVALID_CURSOR),
    (CardNotationError, VALIDATION),
    (Busy, BUSY),
    (AiUnavailable, AI_UNAVAILABLE),
    (QuotaExceeded, RATE_LIMITED),
)
_HTTP: dict[int, Kind] = {
    400: VALIDATION,
    404: NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    413: PAYLOAD_TOO_LARGE,
    415: UNSUPPORTED_MEDIA_TYPE,
}


class ApiError(Exception):
    """A failure the HTTP layer itself finds (schema, headers, size, rate)."""

    def __init__(
        self,
        kind: Kind,
        detail: str,
        invalid_params: Sequence[InvalidParam] = (),
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.invalid_params = list(invalid_params)
        self.headers = headers or {}


def invalid(name: str, reason: str) -> ApiError:
    return ApiError(VALIDATION, f"{name}: {reason}", [InvalidParam(name, reason)])


def ambiguous(name: str, reason: str) -> ApiError:
    return ApiError(AMBIGUOUS, f"{name}: {reason}", [InvalidParam(name, reason)])


def rate_limited(limits: Sequence[str], retry_after: float, headers: Mapping[str, str]) -> ApiError:
    """A 429 naming in words what each limit it is over limits (``limits``: each as
    "10 matches created from this address a minute")."""
    seconds = max(1, math.ceil(retry_after))
    return ApiError(
        RATE_LIMITED,
        f"over the limit of {' and of '.join(limits)}; retry in {seconds} s",
        headers={**headers, "Retry-After": str(seconds)},
    )


def problem_response(
    kind: Kind,
    detail: str,
    *,
    invalid_params: Sequence[InvalidParam] = (),
    legal_moves: tuple[MoveView, ...] | None = None,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    return Response(
        problem_body(kind, detail, invalid_params=invalid_params, legal_moves=legal_moves),
        status_code=kind.status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


def problem_body(
    kind: Kind,
    detail: str,
    *,
    invalid_params: Sequence[InvalidParam] = (),
    legal_moves: tuple[MoveView, ...] | None = None,
) -> bytes:
    """The problem+json document, for answers made outside the app too (a 431 of the
    server's own)."""
    problem = Problem(
        type=kind.type,
        title=kind.title,
        status=kind.status,
        detail=detail,
        invalid_params=list(invalid_params) if invalid_params else UNSET,
        legal_moves=UNSET if legal_moves is None else legal_moves,
    )
    return msgspec.json.encode(problem)


def headers_too_large(max_bytes: int) -> bytes:
    """The body of the 431 that the server answers itself, before the app
    (``infra.http_protocol``), to a request whose line and headers exceed ``max_bytes``."""
    return problem_body(
        HEADERS_TOO_LARGE, f"the request line and headers are over {_size(max_bytes)}"
    )


class ProblemHandler:
    """The one exception handler: ``unavailable`` are the storage adapter's outage errors,
    handed in by the composition root so the API never imports infra."""

    def __init__(
        self, unavailable: tuple[type[BaseException], ...] = (), max_body_bytes: int = 0
    ) -> None:
        self.unavailable = unavailable
        # The app's limit on a body, which a 413 names (0: the title alone).
        self.max_body_bytes = max_body_bytes

    def __call__(self, request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
        if isinstance(exc, ApiError):
            return problem_response(
                exc.kind, exc.detail, invalid_params=exc.invalid_params, headers=exc.headers
            )
        if self.unavailable and isinstance(exc, self.unavailable):
            log.warning("database unavailable: %s", exc)
            return problem_response(
                UNAVAILABLE,
                "the database does not answer",
                headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE)},
            )
        for kind_of, kind in _DOMAIN:
            if isinstance(exc, kind_of):
                return self._domain(kind, exc)
        if isinstance(exc, HTTPException):
            return self._http(exc, request)
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem_response(INTERNAL, "the server failed; the error is logged")

    @staticmethod
    def _domain(kind: Kind, exc: Exception) -> Response[bytes]:
        detail = str(exc)
        if isinstance(exc, InvalidSetup):
            params = [InvalidParam(name, reason) for name, reason in exc.problems]
            return problem_response(kind, detail, invalid_params=params)
        if isinstance(exc, MoveRefused):
            return problem_response(kind, detail, legal_moves=exc.legal_moves)
        if isinstance(exc, InvalidToken | PlayerGone):
            return problem_response(kind, detail, headers={"WWW-Authenticate": "Bearer"})
        if isinstance(exc, Busy):
            return problem_response(kind, detail, headers={"Retry-After": "1"})
        if isinstance(exc, AiUnavailable):
            return problem_response(kind, detail, headers={"Retry-After": str(RETRY_AFTER_AI)})
        if isinstance(exc, QuotaExceeded):
            return problem_response(kind, detail, headers={"Retry-After": str(exc.retry_after)})
        return problem_response(kind, detail)

    def _http(self, exc: HTTPException, request: Request[Any, Any, Any]) -> Response[bytes]:
        status = exc.status_code
        kind = _HTTP.get(status)
        if kind is None:
            kind = replace(HTTP_ERROR, status=status, title=HTTPStatus(status).phrase)
        params: list[InvalidParam] = []
        if isinstance(exc, ValidationException) and isinstance(exc.extra, list):
            types_ = _parameter_types(request)
            params = [
                InvalidParam(
                    str(e.get("key", "")),
                    reason(str(e.get("message", "")), types_.get(str(e.get("key"))), given=False),
                )
                for e in exc.extra
                if isinstance(e, dict)
            ]
        elif isinstance(exc, ValidationException):
            missing = _MISSING.match(exc.detail)
            if missing is not None:
                where, name = missing[1], missing[2]
                takes = _parameter_types(request).get(name)
                said = f"required: give this {where} parameter"
                if takes is not None:
                    said = f"{said}, {expected(takes)}"
                params = [InvalidParam(name, said)]
        headers = {k: v for k, v in (exc.headers or {}).items() if k.lower() == "allow"}
        if status == PAYLOAD_TOO_LARGE.status and self.max_body_bytes:
            return problem_response(kind, f"the body is over {_size(self.max_body_bytes)}")
        # Litestar's own detail quotes the URL, query string (and so ?token=) included.
        detail = "; ".join(f"{p.name}: {p.reason}" for p in params) if params else kind.title
        return problem_response(kind, detail, invalid_params=params, headers=headers)


def _parameter_types(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The types of the parameters of the route ``request`` reached, by name: Litestar
    checked them, and names them, but words nothing."""
    handler = request.scope.get("route_handler")
    model = getattr(handler, "signature_model", None) if handler is not None else None
    if model is None:
        return {}
    return {field.encode_name: field.type for field in msgspec.structs.fields(model)}


def _size(count: int) -> str:
    """A byte count as people write a limit: 64 KiB, 1 MiB, else bytes."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"
