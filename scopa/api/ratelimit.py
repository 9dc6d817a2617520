"""Per-client rate limits, and the RateLimit headers that tell a client where it stands.

Litestar's RateLimitMiddleware limits every route, counts in process memory and sends no
Retry-After; here a route handler names the limits it is under (``opt={"limits":
(CREATE,)}``) and ``RateLimits`` applies them: it counts the request under each, refuses
it with 429 (counting nothing) when any of them is used up, and sends on every answer of
the route, one list member per limit that is on, the structured-field headers of the IETF
httpapi ratelimit-headers draft:

    RateLimit-Policy: "create";q=300;w=60
    RateLimit: "create";r=299;t=60

A HEAD only looks. Limits count in fixed one-minute windows of wall-clock time, per
client address (``api.clients``) or per seat token, in a store every process shares
(``Counts``: the database), so N processes still give a client one limit, not N. Each
limited request costs one statement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from scopa.api.clients import Clients
from scopa.api.errors import rate_limited
from scopa.api.head import is_head
from scopa.service.ids import is_player_token, token_hash
from scopa.service.limits import Counts, Window

WINDOW_SECONDS = 60
CREATE = "create"  # match creations per address per minute
JOINS = "joins"  # joins per address per minute
HINTS = "hints"  # hints per seat token per minute
HINTS_PER_ADDRESS = "hints-per-address"  # hints per address per minute, over its tokens
REVIEWS = "reviews"  # reviews per address per minute
REGISTRATIONS = "registrations"  # players registered per address per minute
# Player tokens refused (401) per address per minute: past it, every request bearing a
# player token is a 429 until the window ends, so tokens cannot be guessed at speed.
BAD_TOKENS = "bad-tokens"

Per = Literal["address", "token"]
# What each limit counts, as its 429 says it.
_COUNTED = {
    CREATE: "matches created from this address",
    JOINS: "seats joined from this address",
    HINTS: "hints asked with this seat token",
    HINTS_PER_ADDRESS: "hints asked from this address",
    REVIEWS: "reviews asked from this address",
    REGISTRATIONS: "players registered from this address",
    BAD_TOKENS: "player tokens refused from this address (every request with a player token waits)",
}


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
        *,
        per: Per = "address",
        window: int = WINDOW_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.per_window = per_window
        self.per = per
        self.window = window
        self.clock = clock

    @property
    def on(self) -> bool:
        return self.per_window > 0

    @property
    def words(self) -> str:
        """The limit as a 429 says it: "10 matches created from this address a minute"."""
        per = "a minute" if self.window == WINDOW_SECONDS else f"in {self.window} s"
        return f"{self.per_window} {_COUNTED.get(self.name, self.name)} {per}"

    @property
    def policy(self) -> str:
        """This limit as a RateLimit-Policy list member."""
        return f'"{self.name}";q={self.per_window};w={self.window}'

    def window_of(self, client: str) -> tuple[Window, float]:
        """The client's window now, and the seconds until it ends."""
        now = self.clock()
        period = int(now // self.window)
        ends_at = (period + 1) * self.window
        return Window(self.name, client, period, self.per_window, ends_at), ends_at - now


def headers(standings: Sequence[tuple[RateLimiter, Standing]]) -> dict[str, str]:
    """RateLimit-Policy and RateLimit for these limits, as the draft writes them."""
    return {
        "RateLimit-Policy": ", ".join(limit.policy for limit, _ in standings),
        "RateLimit": ", ".join(
            f'"{limit.name}";r={standing.remaining};t={math.ceil(standing.reset)}'
            for limit, standing in standings
        ),
    }


def seat_token(scope: Scope) -> str | None:
    """The bearer token of the request (header first, then ``?token=``), if any: the
    handler judges it later; a limit only needs something to count under."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    for key, text in parse_qsl(scope.get("query_string", b"").decode("latin-1")):
        if key == "token" and text:
            return text
    return None


class RateLimits:
    """The limits each route handler names in ``opt["limits"]``, applied before it runs."""

    def __init__(
        self,
        app: ASGIApp,
        limiters: Mapping[str, RateLimiter],
        counts: Counts | None,
        clients: Clients,
    ) -> None:
        self.app = app
        self.limiters = limiters
        self.counts = counts
        self.clients = clients
        self.guesses = limiters.get(BAD_TOKENS)

    def _clients(
        self, scope: Scope, limits: Sequence[RateLimiter]
    ) -> list[tuple[RateLimiter, str]]:
        """Each limit with the client it counts: an address, or a token's hash (a request
        without a token is under no per-token limit: it is refused for that anyway)."""
        address = self.clients.of(scope)
        token = seat_token(scope) if any(limit.per == "token" for limit in limits) else None
        counted = []
        for limit in limits:
            if limit.per == "address":
                counted.append((limit, address))
            elif token is not None:
                counted.append((limit, token_hash(token)))
        return counted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        guesses = self.guesses
        if (
            guesses is not None
            and guesses.on
            and self.counts is not None
            and scope["type"] == ScopeType.HTTP
            and is_player_token(seat_token(scope) or "")
        ):
            send = await self._guessing(guesses, self.counts, scope, send)
        await self._limited(scope, receive, send)

    async def _guessing(
        self, guesses: RateLimiter, counts: Counts, scope: Scope, send: Send
    ) -> Send:
        """A request bearing a player token: refused while its address is over its refused
        tokens, else counted against them if it is refused (401)."""
        window, reset = guesses.window_of(self.clients.of(scope))
        allowed, _ = await counts.count([window], take=False)
        if not allowed:
            raise rate_limited([guesses.words], reset, {})

        async def counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                await counts.count([window], take=True)
            await send(message)

        return counting

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = (
            scope["route_handler"].opt.get("limits") if scope["type"] == ScopeType.HTTP else None
        )
        limits = [self.limiters[name] for name in names or () if self.limiters[name].on]
        counted = self._clients(scope, limits) if limits else []
        if not counted or self.counts is None:
            await self.app(scope, receive, send)
            return
        windows = [limit.window_of(client) for limit, client in counted]
        allowed, used = await self.counts.count([w for w, _ in windows], take=not is_head())
        standings = [
            (limit, Standing(max(0, limit.per_window - n), reset))
            for (limit, _), (_, reset), n in zip(counted, windows, used, strict=True)
        ]
        if not allowed:
            spent = [(limit, s) for limit, s in standings if not s.remaining] or standings
            wait = max(standing.reset for _, standing in spent)
            raise rate_limited([limit.words for limit, _ in spent], wait, headers(standings))
        sent = [(k.lower().encode(), v.encode()) for k, v in headers(standings).items()]

        async def answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *sent]
            await send(message)

        await self.app(scope, receive, answer)
