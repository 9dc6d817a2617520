"""A request id on every log line and every answer, one access-log line per request,
Prometheus metrics per route; HEAD served as GET (``api.head``), the security headers
(``api.security_headers``) and the CORS headers (``api.cors``) on the way out.

Both are plain ASGI wrappers rather than Litestar middleware classes: a move costs the
server about a millisecond of CPU, and each Litestar layer (its middleware base, a
``Request`` built to read the method, ``before_send`` hooks wrapping every send) was a
few per cent of it.

Seat tokens travel in the Authorization header and, on the events routes, in the query
string: the access log records the method, the path without its query, the status and
the time, and nothing else of the request.
"""

from __future__ import annotations

import logging
import os
import re
import time
from contextvars import ContextVar
from typing import Any

from litestar.enums import ScopeType
from litestar.routes import HTTPRoute
from litestar.types import ASGIApp, HTTPScope, Message, Receive, Scope, Send
from prometheus_client import Counter, Gauge, Histogram

from scopa.api.cors import Cors
from scopa.api.head import HEAD, is_head
from scopa.api.security_headers import security_headers

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
# A caller's id is echoed into logs and headers: only a short, plain one is kept.
_CALLER_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")

access_log = logging.getLogger("scopa.access")

# The names and labels Litestar's Prometheus plugin used, so dashboards keep working.
_LABELS = ("method", "path", "status_code", "app_name")
_APP_NAME = "scopa"
REQUESTS = Counter("scopa_requests_total", "Total requests", _LABELS)
DURATION = Histogram("scopa_request_duration_seconds", "Request duration, in seconds", _LABELS)
IN_PROGRESS = Gauge(
    "scopa_requests_in_progress",
    "Total requests currently in progress",
    _LABELS,
    multiprocess_mode="livesum",
)
ERRORS = Counter("scopa_requests_error_total", "Total errors in requests", _LABELS)
# Scraping is not counted: it would only measure itself.
UNMEASURED = frozenset({"/metrics"})


def request_id(scope: HTTPScope) -> bytes:
    """The caller's X-Request-ID when it is a plain one, else a new one."""
    for name, value in scope["headers"]:
        if name == b"x-request-id":
            if _CALLER_ID.fullmatch(value):
                return bytes(value)
            break
    return os.urandom(16).hex().encode()


async def observe(
    scope: HTTPScope, receive: Receive, send: Send, app: ASGIApp, cors: Cors | None = None
) -> None:
    """Runs ``app`` for one HTTP request, around everything Litestar does (its router's
    own 404s included): names the request in the logs and the answer, and logs it. A
    HEAD is served as its GET, without the body (``api.head``); every answer gets the
    security headers, and ``cors`` adds its own."""
    rid = request_id(scope)
    reset = REQUEST_ID.set(rid.decode("ascii"))
    status = 500
    started = time.perf_counter()
    method = scope["method"]
    head = method == "HEAD"
    routed = scope
    if head:
        routed = scope.copy()
        routed["method"] = "GET"
        head_reset = HEAD.set(True)

    async def answer(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [h for h in message.get("headers", ()) if h[0].lower() != b"x-request-id"]
            headers.append((b"x-request-id", rid))
            headers.extend(security_headers(scope["path"]))
            if method == "OPTIONS" or status == 405:
                headers = _complete_allow(headers, routed)
            if cors is not None:
                headers = cors.answer(scope["headers"], headers)
            message["headers"] = headers
        elif head and message["type"] == "http.response.body":
            message["body"] = b""
        await send(message)

    try:
        await app(routed, receive, answer)
    finally:
        access_log.info(
            "%s %s %d",
            method,
            scope["path"],
            status,
            extra={
                "method": method,
                "path": scope["path"],
                "status": status,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
            },
        )
        if head:
            HEAD.reset(head_reset)
        REQUEST_ID.reset(reset)


def _complete_allow(headers: list[Any], scope: HTTPScope) -> list[Any]:
    """Litestar 2 answers OPTIONS with the methods of the first handler registered on a
    path only (litestar#4169, fixed in Litestar 3): name them all, and HEAD with GET."""
    allowed = [value for name, value in headers if name.lower() == b"allow"]
    if not allowed:
        return headers
    methods = {m.strip() for m in allowed[0].decode("latin-1").split(",")}
    template = scope.get("path_template")
    for route in scope["litestar_app"].routes:
        if isinstance(route, HTTPRoute) and route.path_format == template:
            methods = set(route.methods)
            break
    if "GET" in methods:
        methods.add("HEAD")
    kept = [h for h in headers if h[0].lower() != b"allow"]
    return [*kept, (b"allow", ", ".join(sorted(methods)).encode())]


class RouteMetrics:
    """Prometheus metrics per route template (so a match id never becomes a label): a
    route-level middleware, as only the router knows the template."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # Label children, looked up once: prometheus_client takes a lock and builds a
        # tuple of strings on every lookup.
        self._running: dict[tuple[str, str], Any] = {}
        self._done: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        template = scope.get("path_template", "")
        if scope["type"] != ScopeType.HTTP or template in UNMEASURED:
            await self.app(scope, receive, send)
            return
        method = "HEAD" if is_head() else scope["method"]
        status = 500
        started = time.perf_counter()

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        running = self._running.get((method, template))
        if running is None:
            running = IN_PROGRESS.labels(method, template, 200, _APP_NAME)
            self._running[method, template] = running
        running.inc()
        try:
            await self.app(scope, receive, answer)
        finally:
            running.dec()
            done = self._done.get((method, template, status))
            if done is None:
                labels = (method, template, status, _APP_NAME)
                done = (REQUESTS.labels(*labels), DURATION.labels(*labels))
                self._done[method, template, status] = done
            done[0].inc()
            done[1].observe(time.perf_counter() - started)
            if status >= 500:
                ERRORS.labels(method, template, status, _APP_NAME).inc()


class RequestIdFilter(logging.Filter):
    """Stamps each log record with the request it was logged for (None outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True
