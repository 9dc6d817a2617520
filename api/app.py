"""The Litestar application: routes, problem details, CORS, metrics, the OpenAPI document.

``create_app`` is handed everything it serves with; nothing here builds an engine or
reads the environment, so the API depends on the domain alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from litestar import Litestar, Request
from litestar.config.cors import CORSConfig
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins.prometheus import PrometheusController

from api.controllers.events import EventController
from api.controllers.health import HealthController
from api.controllers.hints import HintController
from api.controllers.matches import MatchController
from api.controllers.moves import MoveController
from api.controllers.records import RecordController
from api.controllers.rematch import RematchController
from api.controllers.scores import ScoreController
from api.controllers.seats import SeatController
from api.errors import ProblemHandler
from api.middleware import RouteMetrics, observe
from api.openapi import complete
from api.ratelimit import RateLimiter
from service.matches import MatchService

API_VERSION = "1.0.0"
# Bodies here are a few hundred bytes; a create with explicit decks a few kilobytes.
MAX_BODY_BYTES = 64 * 1024
LifespanHook = Callable[[], Any]


class Metrics(PrometheusController):
    """Prometheus text at /metrics, kept out of the API document: it is not JSON."""

    include_in_schema = False


class ScopaApp(Litestar):
    """Litestar, with each HTTP request named and logged around all it does."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await observe(scope, receive, send, super().__call__)
        else:
            await super().__call__(scope, receive, send)


class AppSettings(Protocol):
    """What the app reads from the settings (infra.settings.Settings has it)."""

    @property
    def rate_limit(self) -> int: ...

    @property
    def cors_origins(self) -> tuple[str, ...]: ...

    @property
    def stream_seconds(self) -> float: ...


class _Completed:
    """Serves Litestar's document as ``api.openapi.complete`` finishes it, computed once."""

    def __init__(self) -> None:
        self._source: dict[str, Any] | None = None
        self._done: dict[str, Any] = {}

    def __call__(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self._source is not schema:
            self._source, self._done = schema, complete(schema)
        return self._done


class ContractJson(JsonRenderPlugin):
    def __init__(self, completed: _Completed) -> None:
        super().__init__()
        self.completed = completed

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.completed(openapi_schema))


class ContractSwagger(SwaggerRenderPlugin):
    def __init__(self, completed: _Completed) -> None:
        super().__init__()
        self.completed = completed

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.completed(openapi_schema))


def openapi_config() -> OpenAPIConfig:
    completed = _Completed()
    return OpenAPIConfig(
        title="Scopa",
        version=API_VERSION,
        description="A game server for the Italian card game Scopa.",
        path="/schema",
        render_plugins=[ContractJson(completed), ContractSwagger(completed)],
        components=Components(
            security_schemes={
                "seatToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat token from create or join",
                )
            }
        ),
        use_handler_docstrings=False,
    )


def openapi_document(app: Litestar) -> dict[str, Any]:
    """The document the app serves at /schema/openapi.json."""
    return complete(app.openapi_schema.to_schema())


def create_app(
    settings: AppSettings,
    service: MatchService,
    *,
    unavailable: tuple[type[BaseException], ...] = (),
    on_startup: Sequence[LifespanHook] = (),
    on_shutdown: Sequence[LifespanHook] = (),
) -> Litestar:
    """The app over ``service``; ``unavailable`` are the errors meaning the database is down."""
    limiter = RateLimiter(settings.rate_limit)
    cors = None
    if settings.cors_origins:
        cors = CORSConfig(
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "If-Match",
                "If-None-Match",
                "Idempotency-Key",
                "Last-Event-ID",
                "X-Request-ID",
            ],
            expose_headers=["ETag", "Location", "Retry-After", "X-Request-ID"],
        )
    return ScopaApp(
        route_handlers=[
            MatchController,
            MoveController,
            EventController,
            ScoreController,
            HintController,
            SeatController,
            RematchController,
            RecordController,
            HealthController,
            Metrics,
        ],
        dependencies={
            "service": Provide(lambda: service, use_cache=True, sync_to_thread=False),
            "limiter": Provide(lambda: limiter, use_cache=True, sync_to_thread=False),
            "stream_seconds": Provide(
                lambda: settings.stream_seconds, use_cache=True, sync_to_thread=False
            ),
        },
        exception_handlers={Exception: ProblemHandler(unavailable)},
        middleware=[RouteMetrics],
        cors_config=cors,
        openapi_config=openapi_config(),
        request_max_body_size=MAX_BODY_BYTES,
        logging_config=None,
        on_startup=list(on_startup),
        on_shutdown=list(on_shutdown),
    )
