"""A request id on every log line and every answer, and one access-log line per request.

Seat tokens travel in the Authorization header and, on the events routes, in the query
string: the access log records the method, the path without its query, the status and
the time, and nothing else of the request.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from contextvars import ContextVar

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.routes import HTTPRoute
from litestar.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)
# A caller's id is echoed into logs and headers: only a short, plain one is kept.
_CALLER_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

access_log = logging.getLogger("scopa.access")


def request_id(scope: Scope) -> str:
    """The caller's X-Request-ID when it is a plain one, else a new one; fixed per request."""
    state = scope.setdefault("state", {})
    known = state.get("request_id")
    if isinstance(known, str):
        return known
    given = next(
        (v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"x-request-id"), ""
    )
    rid = given if _CALLER_ID.fullmatch(given) else uuid.uuid4().hex
    state["request_id"] = rid
    return rid


async def add_request_id(message: Message, scope: Scope) -> None:
    """before_send hook: every answer, the router's own 404s included, names its request."""
    if message["type"] == "http.response.start":
        MutableScopeHeaders.from_message(message)["X-Request-ID"] = request_id(scope)


async def complete_allow(message: Message, scope: Scope) -> None:
    """before_send hook: Litestar 2 answers OPTIONS with the methods of the first handler
    registered on a path only (litestar#4169, fixed in Litestar 3); name them all."""
    if message["type"] != "http.response.start" or scope.get("method") != "OPTIONS":
        return
    headers = MutableScopeHeaders.from_message(message)
    if "allow" not in headers:
        return
    template = scope.get("path_template")
    for route in scope["litestar_app"].routes:
        if isinstance(route, HTTPRoute) and route.path_format == template:
            headers["Allow"] = ", ".join(sorted(route.methods))
            return


class RequestLog(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        reset = REQUEST_ID.set(request_id(scope))
        status = 500
        started = time.perf_counter()

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await next_app(scope, receive, send_wrapper)
        finally:
            access_log.info(
                "%s %s %d",
                scope.get("method", ""),
                scope["path"],
                status,
                extra={
                    "method": scope.get("method", ""),
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
            REQUEST_ID.reset(reset)


class RequestIdFilter(logging.Filter):
    """Stamps each log record with the request it was logged for (None outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True
