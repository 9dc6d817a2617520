"""Schemathesis hooks for this API, loaded by tests/hostile/test_schemathesis.py and by
`st run` against a server (SCHEMATHESIS_HOOKS=tests/hostile/schemathesis_hooks.py).

Schemathesis takes an Authorization that a link sets (a token from a create, a join or a
registration) for a generated one, likely invalid, and so reads a 2xx answer to it as
ignored auth (ST401). A token the server gave out in an answer during the run is vouched
for instead: ignored_auth then checks that the same request without it, and with a
made-up one, is refused.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import schemathesis
from schemathesis.generation.meta import TestPhase

if TYPE_CHECKING:
    from schemathesis.specs.openapi.schemas import OpenApiCase

# Every token an answer of this run carried: seat tokens (create, join, rematch) and
# player tokens (registration, a new token). They are secrets, kept for the run only.
ISSUED: set[str] = set()


def _tokens(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "token" and isinstance(item, str):
                yield item
            else:
                yield from _tokens(item)
    elif isinstance(value, list):
        for item in value:
            yield from _tokens(item)


@schemathesis.hook
def after_call(_ctx: Any, _case: OpenApiCase, response: Any) -> None:
    content_type = response.headers.get("content-type", [""])[0]
    if 200 <= response.status_code < 300 and content_type.startswith("application/json"):
        ISSUED.update(_tokens(response.json()))


@schemathesis.hook
def before_call(_ctx: Any, case: OpenApiCase, _kwargs: dict[str, Any]) -> None:
    """In the stateful phase every call that sends an Idempotency-Key sends a fresh one.
    That phase follows links from what a call made; a key it happened to send twice
    would get the first call's answer again, naming what a later call may have removed
    (a withdrawn challenge is gone), which its checks would read as a resource created
    and not found. Reused keys are tested on purpose elsewhere (test_keys_of_callers,
    test_concurrency), and by the other phases here."""
    if case.meta is None or case.meta.phase.name is not TestPhase.STATEFUL:
        return
    for name in list(case.headers or {}):
        if name.lower() == "idempotency-key":
            case.headers[name] = secrets.token_hex(16)


@schemathesis.auth(refresh_interval=None)
class IssuedTokens:
    """Vouches for a bearer token the server issued, as a link carries it over."""

    def get(self, case: OpenApiCase, _ctx: Any) -> str | None:
        scheme, _, token = str(case.headers.get("Authorization", "")).partition(" ")
        return token if scheme == "Bearer" and token in ISSUED else None

    def set(self, case: OpenApiCase, token: str, _ctx: Any) -> None:
        case.headers["Authorization"] = f"Bearer {token}"
