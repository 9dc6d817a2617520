"""deploy/nginx.conf in front of a real server whose /metrics is private, as compose.yaml
runs the replicas (SCOPA_METRICS_TOKEN from .env): the proxy answers /metrics with the
app's own 404 however the path is spelt and whatever token comes with it, while the
replica itself serves it to the token's bearer alone. Requests are written on the socket
as given, so no client library tidies the paths first."""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.nginx import running_nginx
from tests.support.server_process import Server, start_server

pytestmark = [
    # .ci/run installs nginx: in CI a missing one is a failure, never a skip.
    pytest.mark.skipif(
        shutil.which("nginx") is None and not os.environ.get("CI"), reason="nginx is not installed"
    ),
]

TOKEN = "m3trics-through-the-proxy"
# Spellings of /metrics that the app serves as /metrics...
APP_SPELLINGS = [
    "/metrics",
    "/metrics/",
    "//metrics",
    "/%6Detrics",
    "/%6d%65trics",
    "/metrics?name[]=scopa_requests_total",
]
# ... and all of those with the ones nginx reduces to it.
METRICS_PATHS = [*APP_SPELLINGS, "/./metrics", "/v1/../metrics", "/v1/%2E%2E/metrics"]


def request(base: tuple[str, int], method: str, path: str, token: str | None) -> tuple[int, str]:
    """One HTTP/1.1 request with ``path`` exactly as given: the status and the body."""
    lines = [f"{method} {path} HTTP/1.1", "Host: scopa.example", "Connection: close"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    with socket.create_connection(base, timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), body.decode(errors="replace")


@pytest.fixture
def replica(sqlite_url: str, tmp_path: Path) -> Iterator[Server]:
    server = start_server(sqlite_url, tmp_path, {"SCOPA_METRICS_TOKEN": TOKEN})
    try:
        yield server
    finally:
        server.stop()


def address(server: Server) -> tuple[str, int]:
    host, port = server.base_url.removeprefix("http://").split(":")
    return host, int(port)


def test_metrics_are_not_served_through_the_proxy(replica: Server, tmp_path: Path) -> None:
    direct = address(replica)
    # The replica itself: the token's bearer alone.
    status, body = request(direct, "GET", "/metrics", TOKEN)
    assert status == 200
    assert "scopa_requests_total" in body
    assert request(direct, "GET", "/metrics", None)[0] == 401
    for path in APP_SPELLINGS:
        # Each spelling is /metrics to the app: what the proxy must not let through.
        assert request(direct, "GET", path, None)[0] == 401, path

    upstream = f"{direct[0]}:{direct[1]}"
    with running_nginx(tmp_path, [upstream, upstream]) as (base_url, _):
        proxy = ("127.0.0.1", int(base_url.rsplit(":", 1)[1]))
        status, unknown = request(proxy, "GET", "/no-such-route", None)
        assert status == 404
        assert request(proxy, "GET", "/health", None)[0] == 200
        for path in METRICS_PATHS:
            for token in (None, TOKEN, "wrong"):
                for method in ("GET", "HEAD"):
                    status, body = request(proxy, method, path, token)
                    assert status == 404, (method, path, token)
                    assert "scopa_" not in body, (method, path, token)
                    if method == "GET":
                        # The app's own answer for a route it does not have.
                        assert json.loads(body) == json.loads(unknown), (path, token)
