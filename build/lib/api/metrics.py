"""/metrics: the Prometheus text, kept out of the API document (it is not JSON), and
private when a token is set: then only ``Authorization: Bearer <token>`` may read it."""

from __future__ import annotations

import hmac
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.plugins.prometheus import PrometheusController

from api.errors import METRICS_TOKEN, ApiError


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
