"""/metrics: the Prometheus text (kept out of the API document: it is not JSON), private
when a token is set (then only ``Authorization: Bearer <token>`` may read it), with the
game's figures next to the HTTP ones.

The use cases tell ``GameMetrics`` (their ``MatchObserver``) what happened. Counters and
the streams gauge count what this process did; Prometheus sums them across processes.
The matches being played are a fact of the database, not of a process: that gauge is
counted from the store when /metrics is scraped (``count_active``), so every process
reports the same, whole figure (take its max across processes, not its sum). So are the
AI queue's backlog and the AI capacity of the deployment.
"""

from __future__ import annotations

import hmac
import logging
import math
import time
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.plugins.prometheus import PrometheusController
from prometheus_client import Counter, Gauge, Histogram

from scopa.api.errors import METRICS_TOKEN, ApiError
from scopa.domain.ai import LEVELS
from scopa.service.services import Services

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
# The AI (infra.ai_pool, infra.ai_turns): what this process decided, and the queue and
# capacity across every process, read from the store at the scrape like ACTIVE.
DECISION_SECONDS = Histogram(
    "scopa_ai_decision_seconds",
    "Time an AI decision took in its pool process, by level",
    ["level"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.12, 0.25, 0.5, 1.0, 2.5),
)
AI_TIMEOUTS = Counter(
    "scopa_ai_timeouts_total",
    "AI decisions that overran their budget (SCOPA_AI_BUDGET_MS) by more than 20 ms",
    ["level"],
)
POOL_MISSING = Gauge(
    "scopa_ai_pool_missing",
    "1 while this process's AI pool is being replaced after losing a process",
    multiprocess_mode="livemax",
)
POOL_REPLACEMENTS = Counter(
    "scopa_ai_pool_replacements_total", "AI pools replaced after losing a process"
)
DEADLINE_POLLS = Counter(
    "scopa_deadline_polls_total",
    "Looks of this process for matches past their moment (expiries, turn deadlines)",
)
HINTS_ABANDONED = Counter(
    "scopa_hints_abandoned_total", "Hints dropped before they were computed: the client left"
)
QUEUE_READY = Gauge(
    "scopa_ai_queue_ready",
    "AI turns ready to be played, across every process (NaN when the database does not answer)",
    multiprocess_mode="mostrecent",
)
QUEUE_OLDEST = Gauge(
    "scopa_ai_queue_oldest_seconds",
    "How long the oldest ready AI turn has waited, across every process",
    multiprocess_mode="mostrecent",
)
AI_CAPACITY = Gauge(
    "scopa_ai_capacity",
    "AI decisions the processes playing AI turns can make at once; 0: AI capacity missing",
    multiprocess_mode="mostrecent",
)
# Shown from the start, at 0, rather than appearing with their first count; a move's
# child looked up once, as a lookup takes a lock and builds a tuple each time.
FINISHED.labels("score")
_MOVES_BY = {player: MOVES.labels(player) for player in ("human", "ai")}
for _level in LEVELS:
    DECISION_SECONDS.labels(_level)
    AI_TIMEOUTS.labels(_level)


class GameMetrics:
    """A ``service.ports.MatchObserver`` keeping the Prometheus figures above."""

    def match_created(self) -> None:
        CREATED.inc()

    def match_finished(self, end_reason: str) -> None:
        FINISHED.labels(end_reason).inc()

    def move_played(self, player: str) -> None:
        _MOVES_BY[player].inc()

    def stream_opened(self) -> None:
        STREAMS.inc()

    def stream_closed(self) -> None:
        STREAMS.dec()


class AiMetrics:
    """An ``infra.ai_pool.AiObserver`` keeping the AI pool's figures above."""

    def decided(self, level: str, seconds: float, overran: bool) -> None:
        DECISION_SECONDS.labels(level).observe(seconds)
        if overran:
            AI_TIMEOUTS.labels(level).inc()

    def pool_missing(self, missing: bool) -> None:
        POOL_MISSING.set(1 if missing else 0)
        if not missing:
            POOL_REPLACEMENTS.inc()


def hint_abandoned() -> None:
    HINTS_ABANDONED.inc()


def deadlines_polled() -> None:
    DEADLINE_POLLS.inc()


async def count_active(service: Services, unavailable: tuple[type[BaseException], ...]) -> None:
    """Set the gauges counted in the store; NaN while it does not answer, as the figures
    are then unknown (the scrape still answers, with the other figures)."""
    try:
        ACTIVE.set(await service.lobby.active_matches())
        backlog = await service.ai_work.ai_backlog()
        AI_CAPACITY.set(await service.ai_work.ai_capacity())
    except unavailable:
        log.warning("the store's figures not counted: the database does not answer")
        for gauge in (ACTIVE, QUEUE_READY, QUEUE_OLDEST, AI_CAPACITY):
            gauge.set(math.nan)
        return
    QUEUE_READY.set(backlog.ready)
    oldest = backlog.oldest_ready_at
    QUEUE_OLDEST.set(0.0 if oldest is None else max(time.time() - oldest, 0.0))


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
