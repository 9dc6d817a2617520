"""/metrics: the Prometheus text (kept out of the API document: it is not JSON), private
when a token is set (then only ``Authorization: Bearer <token>`` may read it), with the
game's figures next to the HTTP ones.

The use cases tell ``GameMetrics`` (their ``MatchObserver``) what happened. Counters and
the streams gauge count what this process did; Prometheus sums them across processes.
The matches being played are a fact of the database, not of a process: that gauge is
counted from the store when /metrics is scraped (``count_active``), so every process
reports the same, whole figure (take its max across processes, not its sum).
"""

from __future__ import annotations

import hmac
import logging
import math
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.plugins.prometheus import PrometheusController
from prometheus_client import Counter, Gauge

from api.errors import METRICS_TOKEN, ApiError
from service.matches import MatchService

log = logging.getLogger(__name__)

CREATED = Counter("scopa_matches_created_total", "Matches created")
FINISHED = Counter(
    "scopa_matches_finished_total", "Matches finished, by how they ended", ["end_reason"]
)
MOVES = Counter("scopa_moves_played_total", "Cards played, by the kind of seat", ["player"])
STREAMS = Gauge(
    "scopa_streams_open", "Event streams open in this process", multiprocess_mode="livesum"
)
ACTIVE = Gauge(
    "scopa_matches_active",
    "Matches being played, counted in the database at the scrape (NaN when it does not answer)",
    multiprocess_mode="mostrecent",
)
# Shown from the start, at 0, rather than appearing with their first count.
FINISHED.labels("score")
MOVES.labels("human")
MOVES.labels("ai")


class GameMetrics:
    """A ``service.ports.MatchObserver`` keeping the Prometheus figures above."""

    def match_created(self) -> None:
        CREATED.inc()

    def match_finished(self, end_reason: str) -> None:
        FINISHED.labels(end_reason).inc()

    def move_played(self, player: str) -> None:
        MOVES.labels(player).inc()

    def stream_opened(self) -> None:
        STREAMS.inc()

    def stream_closed(self) -> None:
        STREAMS.dec()


async def count_active(service: MatchService, unavailable: tuple[type[BaseException], ...]) -> None:
    """Set the active-matches gauge from the store; NaN while it does not answer, as the
    figure is then unknown (the scrape still answers, with the other figures)."""
    try:
        ACTIVE.set(await service.active_matches())
    except unavailable:
        log.warning("active matches not counted: the database does not answer")
        ACTIVE.set(math.nan)


class Metrics(PrometheusController):
    include_in_schema = False


def metrics_controller(token: str) -> type[Metrics]:
    """/metrics for all when ``token`` is empty, else for the bearer of ``token`` alone."""
    if not token:
        return Metrics
    expected = token.encode()

    def token_given(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
        scheme, _space, given = connection.headers.get("authorization", "").strip().partition(" ")
        # Compared in constant time: how long a refusal takes tells nothing of the token.
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
            raise ApiError(
                METRICS_TOKEN,
                "send the metrics token: Authorization: Bearer <token>",
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )

    class PrivateMetrics(Metrics):
        guards = [token_given]

    return PrivateMetrics
