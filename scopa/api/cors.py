"""Cross-origin access for the listed origins (``SCOPA_CORS_ORIGINS``), as headers added
to the answers on their way out (``api.middleware.observe``).

Not Litestar's CORS middleware: it overwrites any ``Vary`` an answer carries with its
own, and sends none when every origin is allowed. Here every answer says ``Vary: Origin``
(merged into the ``Vary`` it had), since whether it carries the CORS headers depends on
the Origin sent. A preflight is an OPTIONS the router answers as for any route (204 with
Allow; 404 where there is no route); an origin not listed gets no CORS header, which
browsers read as a refusal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Headers = list[tuple[bytes, bytes]]

METHODS = ("GET", "HEAD", "POST", "DELETE", "OPTIONS")
REQUEST_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-Request-ID",
)
# What a browser script may read of an answer, beyond the always-visible few.
EXPOSED = (
    "ETag",
    "Location",
    "RateLimit",
    "RateLimit-Policy",
    "Retry-After",
    "WWW-Authenticate",
    "X-Request-ID",
)
PREFLIGHT_SECONDS = 600


class Cors:
    def __init__(self, origins: Sequence[str]) -> None:
        self.any_origin = "*" in origins
        self.origins = frozenset(o.encode() for o in origins)
        self._simple = [(b"access-control-expose-headers", ", ".join(EXPOSED).encode())]
        self._preflight = [
            (b"access-control-allow-methods", ", ".join(METHODS).encode()),
            (b"access-control-allow-headers", ", ".join(REQUEST_HEADERS).encode()),
            (b"access-control-max-age", str(PREFLIGHT_SECONDS).encode()),
        ]

    def answer(self, request: Iterable[tuple[bytes, bytes]], answer: Headers) -> Headers:
        """The answer's headers with Vary: Origin and, for a listed origin, CORS's own."""
        origin = None
        preflight = False
        for name, value in request:
            if name == b"origin":
                origin = value
            elif name == b"access-control-request-method":
                preflight = True
        vary: dict[bytes, bytes] = {}
        headers: Headers = []
        for name, value in answer:
            if name.lower() == b"vary":
                for item in value.split(b","):
                    vary.setdefault(item.strip().lower(), item.strip())
            elif not name.lower().startswith(b"access-control-"):
                headers.append((name, value))
        vary.setdefault(b"origin", b"Origin")
        headers.append((b"vary", b", ".join(v for v in vary.values() if v)))
        if origin is None or not (self.any_origin or origin in self.origins):
            return headers
        headers.append((b"access-control-allow-origin", b"*" if self.any_origin else origin))
        headers.extend(self._preflight if preflight else self._simple)
        return headers
