"""Reading what a request carries: JSON bodies, seat tokens and the conditional headers."""

from __future__ import annotations

import hashlib
import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from api.errors import UNSUPPORTED_MEDIA_TYPE, VALIDATION, ApiError, invalid
from api.schemas import InvalidParam
from service.errors import InvalidToken

T = TypeVar("T")

_AT = re.compile(r"^(?P<reason>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_FIELD = re.compile(r"^Object (?:contains unknown|missing required) field `(?P<field>[^`]*)`")
# Header formats, enforced here and published as patterns in the API document.
# W/"17" and "17" both name version 17; the digits are capped so int() stays cheap.
IF_MATCH_PATTERN = r'^\s*(\*|(W/)?"[0-9]{1,18}")\s*$'
# If-None-Match may list several (a cache holding a few versions offers them all), and, as
# any list header (RFC 9110, 5.6.1), empty elements, which count for nothing.
_TAG = r'(W/)?"[0-9]{1,18}"'
# Matched on the value without the white space around it (which HTTP strips anyway), so
# that no run of spaces can be split two ways.
IF_NONE_MATCH_PATTERN = rf"^(\*|({_TAG})?(\s*,(\s*{_TAG})?)*)$"
IDEMPOTENCY_KEY_PATTERN = r"^[\x20-\x7e]{1,255}$"
# Seqs are stored as 32-bit integers: nine digits always fit, and no match comes near.
MAX_SEQ = 999_999_999
LAST_EVENT_ID_PATTERN = r"^\s*[0-9]{1,9}\s*$"
# A query integer as JSON writes one: an optional minus sign, ASCII digits, no leading
# zeros. Litestar alone would also take 1e3 or 1.0, silently read as 1000 or 1.
QUERY_INTEGER_PATTERN = r"^-?(0|[1-9][0-9]*)$"
_IF_MATCH = re.compile(IF_MATCH_PATTERN)
_IF_NONE_MATCH = re.compile(IF_NONE_MATCH_PATTERN)
_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_LAST_EVENT_ID = re.compile(LAST_EVENT_ID_PATTERN)
_QUERY_INTEGER = re.compile(QUERY_INTEGER_PATTERN)


def _param_name(message: str) -> tuple[str, str]:
    """msgspec's "reason - at `$.seats[1].level`" as ("seats[1].level", "reason")."""
    match = _AT.match(message)
    reason = match["reason"] if match else message
    path = ((match and match["path"]) or "").lstrip(".")
    named = _FIELD.match(reason)
    if named:
        path = f"{path}.{named['field']}" if path else named["field"]
    return path or "body", reason


def fingerprint(raw: object) -> str:
    """Equal as JSON means equal fingerprint: keys sorted, no whitespace."""
    return hashlib.sha256(msgspec.json.encode(raw, order="sorted")).hexdigest()


def _integral(value: Any) -> Any:
    """JSON has one kind of number: 7.0 is the integer 7, as JSON Schema (and so the API
    document) says; 7.5 stays a float, which no integer field takes."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    return value


def json_body(request: Request[Any, Any, Any]) -> None:
    """A body said to be anything but JSON is refused (415); one said to be nothing is
    read as JSON, as it must parse as JSON anyway."""
    declared = request.headers.get("content-type")
    if declared is None:
        return
    media = declared.partition(";")[0].strip().lower()
    if media != "application/json" and not (
        media.startswith("application/") and media.endswith("+json")
    ):
        raise ApiError(UNSUPPORTED_MEDIA_TYPE, "the body must be sent as application/json")


def decode_body(body: bytes, type_: type[T]) -> tuple[T, str]:
    """The body as ``type_``, strictly, and its fingerprint; a 400 naming the bad field."""
    try:
        raw = _integral(msgspec.json.decode(body))
        value = msgspec.convert(raw, type=type_)
    except msgspec.ValidationError as exc:
        name, reason = _param_name(str(exc))
        raise ApiError(VALIDATION, f"{name}: {reason}", [InvalidParam(name, reason)]) from exc
    except msgspec.DecodeError as exc:
        raise invalid("body", f"not JSON: {exc}") from exc
    except RecursionError as exc:
        raise invalid("body", "nested too deeply") from exc
    return value, fingerprint(raw)


def optional_body(request: Request[Any, Any, Any], body: bytes, type_: type[T]) -> tuple[T, str]:
    """A body that may be left out: no body and an empty object are the same request."""
    if not body.strip():
        return msgspec.convert({}, type=type_), fingerprint({})
    json_body(request)
    return decode_body(body, type_)


def bearer(request: Request[Any, Any, Any], *, query: bool = False) -> str | None:
    """The seat token: the Authorization header, else (where allowed) ``?token=``."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise InvalidToken("Authorization must be 'Bearer <token>'")
        return token
    return request.query_params.get("token") if query else None


def query_integers(request: Request[Any, Any, Any], *names: str) -> None:
    """A 400 naming the first of ``names`` given in the query string, any of whose values
    is not a plain decimal integer; ranges stay the parameter's own check."""
    for name in names:
        for value in request.query_params.getall(name, []):
            if not _QUERY_INTEGER.fullmatch(value):
                raise invalid(
                    name, "must be a decimal integer: ASCII digits, no leading zero, maybe a -"
                )


def expected_version(if_match: str | None) -> int | None:
    """The version If-Match names; None when absent or ``*`` (any version)."""
    if if_match is None:
        return None
    if not _IF_MATCH.fullmatch(if_match):
        raise invalid("If-Match", 'must be "<version>", W/"<version>" or *')
    value = if_match.strip()
    return None if value == "*" else int(value.removeprefix("W/").strip('"'))


def not_modified(if_none_match: str | None, version: int) -> bool:
    """Whether If-None-Match names ``version`` (weakly: W/"17" is "17"), or is ``*``; an
    empty list names none."""
    if if_none_match is None:
        return False
    value = if_none_match.strip()
    if not _IF_NONE_MATCH.fullmatch(value):
        raise invalid(
            "If-None-Match", 'must be *, or "<version>" or W/"<version>", comma-separated'
        )
    return value == "*" or any(
        int(tag.strip().removeprefix("W/").strip('"')) == version
        for tag in value.split(",")
        if tag.strip()
    )


def idempotency_key(value: str | None) -> str | None:
    if value is not None and not _KEY.fullmatch(value):
        raise invalid("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
    return value


def last_event_id(value: str | None) -> int | None:
    if value is None:
        return None
    if not _LAST_EVENT_ID.fullmatch(value):
        raise invalid("Last-Event-ID", "must be the seq of an event")
    return int(value)


def etag(version: int) -> str:
    return f'"{version}"'


def view_headers(version: int) -> dict[str, str]:
    """Headers of an answer holding a match view: the version, and that it is one viewer's
    (the seat token's) and must be checked again before each use."""
    return {"ETag": etag(version), "Cache-Control": "private, no-cache", "Vary": "Authorization"}
