"""Per-client limits, and the RateLimit headers that tell a client where it stands.

Litestar's RateLimitMiddleware limits every route and sends no Retry-After; here a route
handler names the limits it is under (``opt={"limits": (CREATE,)}``) and ``RateLimits``
applies them: it counts the request, refuses it with 429 (counting nothing) when any of
them is used up, and sends on every answer of the route, one list member per limit that
is on, the structured-field headers of the IETF httpapi ratelimit-headers draft:

    RateLimit-Policy: "create";q=300;w=60
    RateLimit: "create";r=299;t=60

A HEAD only looks. Limits count in fixed one-minute windows per client address, in this
process: with N processes a client gets up to N times a limit, which bounds abuse all
the same.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import rate_limited
from api.head import is_head

WINDOW_SECONDS = 60.0
CREATE = "create"  # match creations per address per minute


@dataclass(frozen=True)
class Standing:
    """Where a client stands under one limit."""

    remaining: int
    reset: float  # seconds until the window starts again


class RateLimiter:
    def __init__(
        self,
        name: str,
        per_window: int,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.per_window = per_window
        self.window = window
        self.clock = clock
        self._window_index = -1
        self._counts: dict[str, int] = {}

    @property
    def on(self) -> bool:
        return self.per_window > 0

    @property
    def policy(self) -> str:
        """This limit as a RateLimit-Policy list member."""
        return f'"{self.name}";q={self.per_window};w={math.ceil(self.window)}'

    def standing(self, client: str) -> Standing:
        """Where the client stands now, counting nothing."""
        now = self.clock()
        index = int(now // self.window)
        if index != self._window_index:
            # Only the current window matters: dropping the rest bounds the memory.
            self._window_index = index
            self._counts.clear()
        used = self._counts.get(client, 0)
        return Standing(max(0, self.per_window - used), (index + 1) * self.window - now)

    def take(self, client: str) -> Standing:
        """Count one request of a client that has some left; where it stands after."""
        before = self.standing(client)
        self._counts[client] = self._counts.get(client, 0) + 1
        return Standing(before.remaining - 1, before.reset)


def client_address(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


def headers(standings: Sequence[tuple[RateLimiter, Standing]]) -> dict[str, str]:
    """RateLimit-Policy and RateLimit for these limits, as the draft writes them."""
    return {
        "RateLimit-Policy": ", ".join(limit.policy for limit, _ in standings),
        "RateLimit": ", ".join(
            f'"{limit.name}";r={standing.remaining};t={math.ceil(standing.reset)}'
            for limit, standing in standings
        ),
    }


class RateLimits:
    """The limits each route handler names in ``opt["limits"]``, applied before it runs."""

    def __init__(self, app: ASGIApp, limiters: Mapping[str, RateLimiter]) -> None:
        self.app = app
        self.limiters = limiters

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = (
            scope["route_handler"].opt.get("limits") if scope["type"] == ScopeType.HTTP else None
        )
        limits = [self.limiters[name] for name in names or () if self.limiters[name].on]
        if not limits:
            await self.app(scope, receive, send)
            return
        client = client_address(scope)
        standings = [(limit, limit.standing(client)) for limit in limits]
        spent = [(limit, standing) for limit, standing in standings if not standing.remaining]
        if spent:
            wait = max(standing.reset for _, standing in spent)
            raise rate_limited([limit.name for limit, _ in spent], wait, headers(standings))
        if not is_head():
            standings = [(limit, limit.take(client)) for limit, _ in standings]
        sent = [(k.lower().encode(), v.encode()) for k, v in headers(standings).items()]

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *sent]
            await send(message)

        await self.app(scope, receive, answer)
