"""Schemathesis hooks for this API, loaded by tests/hostile/test_schemathesis.py and by
`st run` against a server (SCHEMATHESIS_HOOKS=tests/hostile/schemathesis_hooks.py).

Schemathesis takes an Authorization that a link sets (a token from a create, a join or a
registration) for a generated one, likely invalid, and so reads a 2xx answer to it as
ignored auth (ST401). A token the server gave out in an answer during the run is vouched
for instead: ignored_auth then checks that the same request without it, and with a
made-up one, is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import schemathesis

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


@schemathesis.auth(refresh_interval=None)
class IssuedTokens:
    """Vouches for a bearer token the server issued, as a link carries it over."""

    def get(self, case: OpenApiCase, _ctx: Any) -> str | None:
        scheme, _, token = str(case.headers.get("Authorization", "")).partition(" ")
        return token if scheme == "Bearer" and token in ISSUED else None

    def set(self, case: OpenApiCase, token: str, _ctx: Any) -> None:
        case.headers["Authorization"] = f"Bearer {token}"
