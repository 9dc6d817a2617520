"""The Litestar application: routes, problem details, CORS, metrics, the OpenAPI document.

``create_app`` is handed everything it serves with; nothing here builds an engine or
reads the environment, so the API depends on the domain alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from litestar import Litestar, Request, Response, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.response import Redirect

from scopa.api import __version__
from scopa.api.clients import Clients
from scopa.api.controllers.challenges import ChallengeController
from scopa.api.controllers.events import EventController
from scopa.api.controllers.health import HealthController
from scopa.api.controllers.hints import HintController
from scopa.api.controllers.leaderboard import leaderboard
from scopa.api.controllers.lifecycle import LifecycleController
from scopa.api.controllers.matches import MatchController
from scopa.api.controllers.me import MeController
from scopa.api.controllers.moves import MoveController
from scopa.api.controllers.pages import SWAGGER_ASSETS, swagger_assets
from scopa.api.controllers.players import PlayerController
from scopa.api.controllers.problems import problem_page
from scopa.api.controllers.records import RecordController
from scopa.api.controllers.rematch import RematchController
from scopa.api.controllers.reviews import ReviewController
from scopa.api.controllers.scores import ScoreController
from scopa.api.controllers.seats import SeatController
from scopa.api.controllers.web import service_worker, start_screen, static_files
from scopa.api.cors import Cors
from scopa.api.errors import NOT_FOUND, ProblemHandler, problem_response
from scopa.api.metrics import count_active, metrics_controller
from scopa.api.middleware import RouteMetrics, observe
from scopa.api.openapi import complete
from scopa.api.quotas import CreationQuotas, StreamLimits
from scopa.api.ratelimit import (
    BAD_TOKENS,
    CREATE,
    HINTS,
    HINTS_PER_ADDRESS,
    JOINS,
    REGISTRATIONS,
    REVIEWS,
    Per,
    RateLimiter,
    RateLimits,
)
from scopa.service.limits import Counts, Slots
from scopa.service.services import Services

# Bodies here are a few hundred bytes; a create with explicit decks a few kilobytes.
MAX_BODY_BYTES = 64 * 1024
LifespanHook = Callable[[], Any]


class ScopaApp(Litestar):
    """Litestar, with each HTTP request named and logged around all it does."""

    cors: Cors | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await observe(scope, receive, send, super().__call__, self.cors)
        else:
            await super().__call__(scope, receive, send)


class AppSettings(Protocol):
    """What the app reads from the settings (infra.settings.Settings has it)."""

    @property
    def rate_limit(self) -> int: ...

    @property
    def joins_per_minute(self) -> int: ...

    @property
    def hints_per_minute(self) -> int: ...

    @property
    def hints_per_address_per_minute(self) -> int: ...

    @property
    def reviews_per_minute(self) -> int: ...

    @property
    def registrations_per_minute(self) -> int: ...

    @property
    def bad_tokens_per_minute(self) -> int: ...

    @property
    def limit_window_seconds(self) -> int: ...

    @property
    def waiting_per_address(self) -> int: ...

    @property
    def ai_only_per_address(self) -> int: ...

    @property
    def streams_per_address(self) -> int: ...

    @property
    def streams_per_match(self) -> int: ...

    @property
    def trusted_proxies(self) -> tuple[str, ...]: ...

    @property
    def cors_origins(self) -> tuple[str, ...]: ...

    @property
    def stream_seconds(self) -> float: ...

    @property
    def metrics_token(self) -> str: ...


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
    """The Swagger UI on this server's own copy of its assets: it renders offline."""

    def __init__(self, completed: _Completed) -> None:
        super().__init__(
            js_url=f"{SWAGGER_ASSETS}/swagger-ui-bundle.js",
            css_url=f"{SWAGGER_ASSETS}/swagger-ui.css",
            standalone_preset_js_url=f"{SWAGGER_ASSETS}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{SWAGGER_ASSETS}/favicon-32x32.png'>",
        )
        self.completed = completed

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.completed(openapi_schema))


def _problem_if_missing(response: Response[Any]) -> Response[Any]:
    """Litestar answers a documentation page it does not serve (/schema/redoc, ...) with
    an HTML 404: this API's 404 is problem+json everywhere."""
    if response.status_code == 404:
        return problem_response(NOT_FOUND, "no such documentation page")
    return response


def _browser_to_the_docs(request: Request[Any, Any, Any]) -> Response[Any] | None:
    """A browser asking for /schema (it accepts HTML) is sent to the Swagger UI; an API
    client keeps the document it always got there."""
    if request.url.path.rstrip("/") != "/schema" or not _accepts_html(request):
        return None
    return Redirect(
        path="/schema/swagger", status_code=302, headers={"Vary": "Accept"}, media_type="text/plain"
    )


def _accepts_html(request: Request[Any, Any, Any]) -> bool:
    for item in request.headers.get("accept", "").split(","):
        media, *parameters = (part.strip() for part in item.split(";"))
        if media.lower() == "text/html":
            weights = [p.partition("=")[2] for p in parameters if p.lower().startswith("q=")]
            try:
                return not weights or float(weights[0]) > 0
            except ValueError:
                return False
    return False


def openapi_config() -> OpenAPIConfig:
    completed = _Completed()
    return OpenAPIConfig(
        title="Scopa",
        version=__version__,
        description="A game server for the Italian card game Scopa.",
        path="/schema",
        openapi_router=Router(
            "/schema",
            route_handlers=[],
            include_in_schema=False,
            before_request=_browser_to_the_docs,
            after_request=_problem_if_missing,
        ),
        render_plugins=[ContractJson(completed), ContractSwagger(completed)],
        components=Components(
            security_schemes={
                "seatToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat token from create or join, or a player token "
                    "standing for the player's seat",
                ),
                "playerToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A player token (scp_...) from registerPlayer or createToken",
                ),
            }
        ),
        use_handler_docstrings=False,
    )


def openapi_document(app: Litestar) -> dict[str, Any]:
    """The document the app serves at /schema/openapi.json."""
    return complete(app.openapi_schema.to_schema())


def create_app(
    settings: AppSettings,
    service: Services,
    *,
    unavailable: tuple[type[BaseException], ...] = (),
    on_startup: Sequence[LifespanHook] = (),
    on_shutdown: Sequence[LifespanHook] = (),
    counts: Counts | None = None,
    slots: Slots | None = None,
    clock: Callable[[], float] = time.time,
) -> ScopaApp:
    """The app over ``service``; ``unavailable`` are the errors meaning the database is down.

    ``counts`` and ``slots`` keep the limits' counts where every process sees them; without
    them (an app over test doubles) no limit counts."""
    clients = Clients(settings.trusted_proxies)
    limits: tuple[tuple[str, int, Per], ...] = (
        (CREATE, settings.rate_limit, "address"),
        (JOINS, settings.joins_per_minute, "address"),
        (HINTS, settings.hints_per_minute, "token"),
        (HINTS_PER_ADDRESS, settings.hints_per_address_per_minute, "address"),
        (REVIEWS, settings.reviews_per_minute, "address"),
        (REGISTRATIONS, settings.registrations_per_minute, "address"),
        (BAD_TOKENS, settings.bad_tokens_per_minute, "address"),
    )
    limiters = {
        name: RateLimiter(name, figure, per=per, window=settings.limit_window_seconds, clock=clock)
        for name, figure, per in limits
    }
    streams = StreamLimits(slots, clients, settings.streams_per_address, settings.streams_per_match)
    creators = CreationQuotas(clients, settings.waiting_per_address, settings.ai_only_per_address)

    async def count_before_scrape(_: Request[Any, Any, Any]) -> None:
        await count_active(service, unavailable)

    app = ScopaApp(
        route_handlers=[
            MatchController,
            MoveController,
            LifecycleController,
            EventController,
            ScoreController,
            HintController,
            SeatController,
            RematchController,
            RecordController,
            ReviewController,
            HealthController,
            PlayerController,
            ChallengeController,
            MeController,
            leaderboard,
            Router(
                "/",
                route_handlers=[metrics_controller(settings.metrics_token)],
                before_request=count_before_scrape,
            ),
            problem_page,
            start_screen,
            service_worker,
            static_files(),
            swagger_assets(),
        ],
        dependencies={
            "service": Provide(lambda: service, use_cache=True, sync_to_thread=False),
            "stream_seconds": Provide(
                lambda: settings.stream_seconds, use_cache=True, sync_to_thread=False
            ),
            "outage": Provide(lambda: unavailable, use_cache=True, sync_to_thread=False),
            "streams": Provide(lambda: streams, use_cache=True, sync_to_thread=False),
            "creators": Provide(lambda: creators, use_cache=True, sync_to_thread=False),
            "clients": Provide(lambda: clients, use_cache=True, sync_to_thread=False),
        },
        exception_handlers={Exception: ProblemHandler(unavailable, MAX_BODY_BYTES)},
        middleware=[
            RouteMetrics,
            DefineMiddleware(RateLimits, limiters=limiters, counts=counts, clients=clients),
        ],
        openapi_config=openapi_config(),
        request_max_body_size=MAX_BODY_BYTES,
        logging_config=None,
        on_startup=list(on_startup),
        on_shutdown=[streams.settle, *on_shutdown],
        # For the server: a shutdown ends the streams before it waits on requests.
        state=State({"close_streams": service.records.close_streams}),
    )
    if settings.cors_origins:
        app.cors = Cors(settings.cors_origins)
    return app
