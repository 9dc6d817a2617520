"""Per-client limits on match creation.

Litestar's RateLimitMiddleware limits every route and sends no Retry-After; creation is
the one costly, abusable call, so it alone is counted, in fixed one-minute windows per
client address. The counts live in this process: with N processes a client gets up to N
times the limit, which bounds abuse all the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable

WINDOW_SECONDS = 60.0


class RateLimiter:
    def __init__(
        self,
        per_window: int,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_window = per_window
        self.window = window
        self.clock = clock
        self._window_index = -1
        self._counts: dict[str, int] = {}

    def hit(self, client: str) -> float | None:
        """Count one request; the seconds until the client may try again when over."""
        if self.per_window <= 0:
            return None
        now = self.clock()
        index = int(now // self.window)
        if index != self._window_index:
            # Only the current window matters: dropping the rest bounds the memory.
            self._window_index = index
            self._counts.clear()
        count = self._counts.get(client, 0)
        if count >= self.per_window:
            return (index + 1) * self.window - now
        self._counts[client] = count + 1
        return None
