"""uvicorn's h11 protocol with the limits uvicorn lacks: slow and idle clients, crowds.

uvicorn has a keep-alive timeout but no limit on how long a request's headers or body may
take to arrive (a client sending a byte every few seconds holds its connection for good),
and its ``limit_concurrency`` answers 503, which makes a browser's EventSource give up.
Here, per connection:

- the headers of each request must arrive within ``header_seconds`` of the connection
  being made or of the previous answer, and its body within ``body_seconds`` after that;
  a request that misses either is closed;
- a connection over the server-wide cap, or over the cap of its peer address, is closed
  as soon as it is accepted, before it costs anything but its descriptor: the cap is kept
  below the process's descriptor limit, so the database and ``/health`` always have some.

Which limit lives where: these here (uvicorn process), the keep-alive timeout (uvicorn's
own ``timeout_keep_alive``), the graceful shutdown (uvicorn's
``timeout_graceful_shutdown`` plus the feed closing its streams), request quotas (the
app), and in front of several processes the proxy's own timeouts and connection limits
(compose.yaml). The peer address counted is the socket's: behind a proxy, the proxy's.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter
from dataclasses import dataclass

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("scopa.connections")

# Descriptors kept back from the connection cap: the database pool, the listener, logs.
RESERVED_DESCRIPTORS = 64


@dataclass(frozen=True)
class ConnectionLimits:
    header_seconds: float = 10.0
    body_seconds: float = 30.0
    max_connections: int = 4096  # server-wide; lowered to fit the descriptor limit
    per_address: int = 256  # 0: no cap per address

    def server_cap(self) -> int:
        """The server-wide cap, below the process's descriptor limit as it is now."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft <= 0:  # RLIM_INFINITY
            return self.max_connections
        return min(self.max_connections, max(16, soft - RESERVED_DESCRIPTORS))


class BoundedLog:
    """At most one line per ``seconds`` for each kind of refusal, with the count since."""

    def __init__(self, seconds: float = 10.0) -> None:
        self.seconds = seconds
        self._last: dict[str, float] = {}
        self._missed: Counter[str] = Counter()

    def warning(self, kind: str, message: str) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, -self.seconds) < self.seconds:
            self._missed[kind] += 1
            return
        missed = self._missed.pop(kind, 0)
        self._last[kind] = now
        log.warning("%s%s", message, f" ({missed} more since the last line)" if missed else "")


def guarded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """An ``H11Protocol`` class enforcing ``limits`` (one class per server: it counts the
    server's connections per address)."""
    per_address: Counter[str] = Counter()
    refusals = BoundedLog()

    class GuardedProtocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _address: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            cap = limits.server_cap()
            if len(self.connections) > cap:
                refusals.warning("server", f"connection refused: over {cap} connections")
                transport.abort()
                return
            if limits.per_address and per_address[address] >= limits.per_address:
                refusals.warning(
                    "address", f"connection refused: over {limits.per_address} from one address"
                )
                transport.abort()
                return
            self._address = address
            per_address[address] += 1
            self._arm(limits.header_seconds, "headers")

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._address is not None:
                per_address[self._address] -= 1
                if per_address[self._address] <= 0:
                    del per_address[self._address]
                self._address = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow_request()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(limits.header_seconds, "headers")
                self._follow_request()  # a pipelined request may already be in

        def _follow_request(self) -> None:
            state = self.conn.their_state
            if state is h11.SEND_BODY and self._waiting_for == "headers":
                self._arm(limits.body_seconds, "body")
            elif state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
                self._disarm()

        _waiting_for: str | None = None

        def _arm(self, seconds: float, what: str) -> None:
            self._disarm()
            self._waiting_for = what
            self._deadline = self.loop.call_later(seconds, self._too_slow, what)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._waiting_for = None

        def _too_slow(self, what: str) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            refusals.warning(what, f"connection closed: the request's {what} came too slowly")
            self.transport.close()

    return GuardedProtocol


class RateLimitedAsyncioLog(logging.Filter):
    """asyncio logs a failed accept (no descriptor left) on every try, thousands a second:
    let one line through per message every ``seconds``."""

    def __init__(self, seconds: float = 10.0) -> None:
        super().__init__()
        self.seconds = seconds
        self._last: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        now = time.monotonic()
        if now - self._last.get(key, -self.seconds) < self.seconds:
            return False
        self._last[key] = now
        return True


def install_accept_log_bound(seconds: float = 10.0) -> None:
    logging.getLogger("asyncio").addFilter(RateLimitedAsyncioLog(seconds))


__all__ = [
    "ConnectionLimits",
    "guarded_protocol",
    "install_accept_log_bound",
]
