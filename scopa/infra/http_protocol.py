"""uvicorn's httptools protocol with the limits uvicorn lacks: slow and idle clients, crowds.

httptools (a C parser) rather than h11: a crowd of streams is mostly writes of small
chunks, and h11's pure-Python framing of each was a quarter of the server's CPU per
event and stream.

uvicorn has a keep-alive timeout but no limit on how long a request's headers or body may
take to arrive (a client sending a byte every few seconds holds its connection for good),
and its ``limit_concurrency`` answers 503, which makes a browser's EventSource give up.
Here, per connection:

- the headers of each request must arrive within ``header_seconds`` of the connection
  being made or of the previous answer, and its body within ``body_seconds`` after that;
  a request that misses either is closed;
- a connection over the server-wide cap, or over the cap of its peer address, is closed
  as soon as it is accepted, before it costs anything but its descriptor: the cap is kept
  below the process's descriptor limit, so the database and ``/health`` always have some;
- a request whose line and headers run over ``max_header_bytes`` is answered 431 and
  closed. httptools keeps each header's bytes until the header ends, and joins its pieces
  as they come (an 8 MB header cost the process hundreds of MB and stalled its loop for
  seconds): so the bytes of a request's headers are counted as they arrive, and the parser
  is never fed past the bound.

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

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("scopa.connections")

# Descriptors kept back from the connection cap: the database pool, the listener, logs.
RESERVED_DESCRIPTORS = 64
# How long a refused request's further bytes are read and dropped after its 431: closing
# on unread bytes resets the connection, and the client could lose the answer with it.
LINGER_SECONDS = 2.0


@dataclass(frozen=True)
class ConnectionLimits:
    header_seconds: float = 10.0
    body_seconds: float = 30.0
    max_connections: int = 4096  # server-wide; lowered to fit the descriptor limit
    per_address: int = 256  # 0: no cap per address
    max_header_bytes: int = 65_536

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


def too_large_answer(problem: bytes) -> bytes:
    """The whole 431 answer around ``problem``, a problem+json document."""
    head = (
        "HTTP/1.1 431 Request Header Fields Too Large\r\n"
        "content-type: application/problem+json\r\n"
        f"content-length: {len(problem)}\r\n"
        "x-content-type-options: nosniff\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + problem


def guarded_protocol(limits: ConnectionLimits, headers_too_large: bytes) -> type[HttpToolsProtocol]:
    """An ``HttpToolsProtocol`` class enforcing ``limits`` (one class per server: it counts
    the server's connections per address); ``headers_too_large`` is the problem+json body
    of the 431 (the app's wording: this layer knows no problem types)."""
    per_address: Counter[str] = Counter()
    refusals = BoundedLog()
    refused = too_large_answer(headers_too_large)

    class GuardedProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _address: str | None = None
        # Where the request being read is: its headers, its body, or all in; and how
        # many requests are all in but not yet answered (pipelined).
        _reading: str = "headers"
        _unanswered: int = 0
        # Bytes of the request's line and headers read so far.
        _header_bytes: int = 0
        _lingering: bool = False

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
            # Outside a body, what arrives is a request's line and headers (after an answered
            # request, the next one's): fed to the parser no further than the bound. The
            # piece that ends a body may hold the next request's first bytes uncounted: one
            # read, at most 256 KiB.
            if self._lingering:
                return
            while data and self._reading != "body" and not self.transport.is_closing():
                room = limits.max_header_bytes - self._header_bytes
                if room <= 0:
                    self._headers_too_large()
                    return
                piece, data = data[:room], data[room:]
                self._header_bytes += len(piece)
                super().data_received(piece)
            if data and not self.transport.is_closing():
                super().data_received(data)

        def _headers_too_large(self) -> None:
            refusals.warning(
                "header bytes", f"request refused: headers over {limits.max_header_bytes} bytes"
            )
            if self._unanswered:
                # An answer is under way: a 431 would land inside a pipelined answer.
                self.transport.close()
                return
            self.transport.write(refused)
            self.transport.write_eof()
            self._lingering = True
            self._disarm()
            self._deadline = self.loop.call_later(LINGER_SECONDS, self.transport.close)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._reading = "headers"

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._reading = "body"
            self._header_bytes = 0
            self._arm(limits.body_seconds, "body")

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._reading = "done"
            self._unanswered += 1
            self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._unanswered = max(0, self._unanswered - 1)
            if self.transport.is_closing() or self._unanswered:
                return  # a pipelined request is already in: nothing to wait for
            # The next request's clock starts with this answer.
            if self._reading == "body":
                self._arm(limits.body_seconds, "body")
            else:
                self._arm(limits.header_seconds, "headers")

        def _arm(self, seconds: float, what: str) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow, what)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

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
