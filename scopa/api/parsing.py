"""Reading what a request carries: JSON bodies, seat tokens and the conditional headers."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from scopa.api.errors import (
    AMBIGUOUS,
    UNSUPPORTED_MEDIA_TYPE,
    VALIDATION,
    ApiError,
    ambiguous,
    invalid,
)
from scopa.api.schemas import InvalidParam
from scopa.api.validation import message_problem, problems
from scopa.service.errors import InvalidToken
from scopa.service.play import NO_VERSION

T = TypeVar("T")

# Header formats, enforced here and published as patterns in the API document.
# W/"17" and "17" both name version 17; the digits are capped so int() stays cheap. An
# empty If-Match is a list of no tags (RFC 9110, 13.1.1: ``#entity-tag``), naming no version.
IF_MATCH_PATTERN = r'^\s*(\*|(W/)?"[0-9]{1,18}")?\s*$'
# If-None-Match may list several (a cache holding a few versions offers them all), and, as
# any list header (RFC 9110, 5.6.1), empty elements, which count for nothing.
_TAG = r'(W/)?"[0-9]{1,18}"'
# Matched on the value without the white space around it (which HTTP strips anyway), so
# that no run of spaces can be split two ways.
IF_NONE_MATCH_PATTERN = rf"^(\*|({_TAG})?(\s*,(\s*{_TAG})?)*)$"
# HTTP strips the white space around a header value before the server reads it, so a key
# that the document allowed to begin or end with a space would arrive shorter, or empty:
# its first and last characters are visible ones.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$"
# Where the answer holds a seat token (create, join), the key is the secret that fetches
# it again: long enough that it can be a random one.
SECRET_KEY_PATTERN = r"^[\x21-\x7e][\x20-\x7e]{14,253}[\x21-\x7e]$"
# Seqs are stored as 32-bit integers: nine digits always fit, and no match comes near.
MAX_SEQ = 999_999_999
LAST_EVENT_ID_PATTERN = r"^\s*[0-9]{1,9}\s*$"
# A query integer as JSON writes one: an optional minus sign, ASCII digits, no leading
# zeros. Litestar alone would also take 1e3 or 1.0, silently read as 1000 or 1.
QUERY_INTEGER_PATTERN = r"^-?(0|[1-9][0-9]*)$"
_IF_MATCH = re.compile(IF_MATCH_PATTERN)
_IF_NONE_MATCH = re.compile(IF_NONE_MATCH_PATTERN)
_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
_SECRET_KEY = re.compile(SECRET_KEY_PATTERN)
_LAST_EVENT_ID = re.compile(LAST_EVENT_ID_PATTERN)
_QUERY_INTEGER = re.compile(QUERY_INTEGER_PATTERN)


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
    """The body as ``type_``, strictly, and its fingerprint; else a 400 naming every bad
    field (msgspec alone names the first), or every key given twice in one object."""
    try:
        return _decode(body, type_)
    except RecursionError as exc:
        raise invalid("body", "nested too deeply") from exc


def _decode(body: bytes, type_: type[T]) -> tuple[T, str]:
    try:
        raw = _integral(msgspec.json.decode(body))
    except msgspec.ValidationError as exc:  # a number past any msgspec holds
        raise invalid("body", message_problem(str(exc))[1]) from exc
    except msgspec.DecodeError as exc:
        raise invalid("body", f"not JSON: {exc}") from exc
    if body.count(b":") != _members(raw):
        _refuse_repeated_keys(body)
    try:
        value = msgspec.convert(raw, type=type_)
    except msgspec.ValidationError as exc:
        found = problems(raw, type_) or [message_problem(str(exc))]
        params = [InvalidParam(name or "body", reason) for name, reason in found]
        detail = "; ".join(f"{p.name}: {p.reason}" for p in params)
        raise ApiError(VALIDATION, detail, params) from exc
    return value, fingerprint(raw)


def _members(tree: Any) -> int:
    """How many members the objects of a decoded tree hold, all depths together.

    A body holds one colon per member it writes, plus any inside its strings; the decoder
    keeps one member per key. So when the body holds exactly as many colons as the tree
    holds members, no object gave a key twice, and the slower search is spared."""
    count = 0
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += len(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


class _Members(list[tuple[str, Any]]):
    """A JSON object's members as written, repeats kept."""


def _no_number(text: str) -> None:
    """Numbers do not matter to finding keys; not converting them spares the work (and
    int()'s limit on digits)."""


def _refuse_repeated_keys(body: bytes) -> None:
    """msgspec keeps the last of a key given twice; the server refuses to guess (400)."""
    try:
        tree = json.loads(
            body.decode(), object_pairs_hook=_Members, parse_int=_no_number, parse_float=_no_number
        )
    except ValueError as exc:  # what msgspec took, the standard library should too
        raise invalid("body", f"not JSON: {exc}") from exc
    repeated: list[str] = []
    stack: list[tuple[str, Any]] = [("", tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Members):
            seen: set[str] = set()
            for key, member in node:
                name = f"{path}.{key}" if path else key
                if key in seen and name not in repeated:
                    repeated.append(name)
                seen.add(key)
                stack.append((name, member))
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", member) for i, member in enumerate(node))
    if repeated:
        repeated.sort()
        params = [InvalidParam(name, "this key is given more than once") for name in repeated]
        raise ApiError(AMBIGUOUS, f"given more than once: {', '.join(repeated)}", params)


def optional_body(request: Request[Any, Any, Any], body: bytes, type_: type[T]) -> tuple[T, str]:
    """A body that may be left out: no body and an empty object are the same request."""
    if not body.strip():
        return msgspec.convert({}, type=type_), fingerprint({})
    json_body(request)
    return decode_body(body, type_)


def bearer(request: Request[Any, Any, Any], *, query: bool = False) -> str | None:
    """The seat token: the Authorization header, else (where allowed) ``?token=``.

    A request that could mean two tokens, or a token where it is not read, is refused
    (400) rather than read one way: two Authorization headers, ``?token=`` twice, or
    ``?token=`` on a route other than the events routes (``query``)."""
    headers = request.headers.getall("authorization", [])
    given = request.query_params.getall("token", [])
    if len(headers) > 1:
        raise ambiguous("Authorization", "sent more than once: send one header")
    if given and not query:
        raise ambiguous(
            "token", "only the events routes read ?token=; send Authorization: Bearer <token>"
        )
    if len(given) > 1:
        raise ambiguous("token", "given more than once: give one")
    if headers:
        scheme, _, token = headers[0].strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise InvalidToken("Authorization must be 'Bearer <token>'")
        return token
    return given[0] if given else None


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
    """The version If-Match names; None when absent or ``*`` (any version), NO_VERSION
    when empty (no version at all: the change is refused as stale)."""
    if if_match is None:
        return None
    if not _IF_MATCH.fullmatch(if_match):
        raise invalid("If-Match", 'must be "<version>", W/"<version>" or *')
    value = if_match.strip()
    if not value:
        return NO_VERSION
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


def idempotency_key(value: str | None, *, secret: bool = False) -> str | None:
    """``secret``: the key of a request whose answer holds a seat token."""
    shortest, pattern = (16, _SECRET_KEY) if secret else (1, _KEY)
    if value is not None and not pattern.fullmatch(value):
        raise invalid("Idempotency-Key", f"must be {shortest} to 255 printable ASCII characters")
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
