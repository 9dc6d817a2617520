"""HEAD on every GET route: served by the GET's handler, sent without a body.

Litestar routes HEAD only to handlers declared for it. Here a HEAD request is routed as a
GET (``api.middleware.observe``) with ``is_head()`` true, and its answer goes out with the
GET's status and headers but no body. Handlers whose GET would wait, stream or compute
answer at once under HEAD instead, and count against no limit.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from litestar import Litestar, Request, Response
from litestar.response.base import ASGIResponse

HEAD: ContextVar[bool] = ContextVar("head", default=False)


def is_head() -> bool:
    """Whether the request being served is a HEAD."""
    return HEAD.get()


class Unsent(Response[Any]):
    """The answer to a HEAD whose GET body was never made: the GET's status and media
    type, and no Content-Length, as RFC 9110 allows for what only the content decides."""

    def __init__(self, media_type: str) -> None:
        super().__init__(None, headers={"Content-Type": media_type})

    def to_asgi_response(
        self, app: Litestar | None, request: Request[Any, Any, Any], **kwargs: Any
    ) -> ASGIResponse:
        return super().to_asgi_response(app, request, **{**kwargs, "is_head_response": True})
