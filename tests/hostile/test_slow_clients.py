"""Slow, silent and crowding clients against the real server process, and its shutdown.

A client that sends its headers a byte at a time, or nothing at all, is closed by the
header timeout; a thousand half-sent requests from one address do not lock out the rest
(the per-address cap closes them at once, the server-wide cap stays below the descriptor
limit); SIGTERM with streams open ends them and exits within 10 s; and the server does
not log a line per refused connection.
"""

from __future__ import annotations

import contextlib
import resource
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.server_process import Server, start_server

pytestmark = pytest.mark.slow

HEADER_SECONDS = 2


@pytest.fixture
def server(sqlite_url: str, tmp_path: Path) -> Iterator[Server]:
    served = start_server(
        sqlite_url,
        tmp_path,
        {
            "SCOPA_HEADER_TIMEOUT_SECONDS": str(HEADER_SECONDS),
            "SCOPA_CONNECTIONS_PER_ADDRESS": "64",
        },
    )
    try:
        yield served
    finally:
        served.stop()


def _connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    host, port = server.base_url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))


def _closed_within(conn: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed ``conn`` (reading EOF), or None."""
    started = time.monotonic()
    conn.settimeout(seconds)
    try:
        while conn.recv(4096):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - started


def test_a_silent_connection_is_closed_by_the_header_timeout(server: Server) -> None:
    with contextlib.closing(_connect(server)) as conn:
        closed = _closed_within(conn, HEADER_SECONDS + 5)
    assert closed is not None
    assert closed >= HEADER_SECONDS - 0.5


def test_headers_sent_a_byte_at_a_time_are_cut_off(server: Server) -> None:
    request = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    with contextlib.closing(_connect(server)) as conn:
        started = time.monotonic()
        cut_off = None
        for byte in request:
            try:
                conn.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                cut_off = time.monotonic() - started
                break
            conn.settimeout(0.5)
            try:
                if conn.recv(4096) == b"":
                    cut_off = time.monotonic() - started
                    break
            except TimeoutError:
                pass
            assert time.monotonic() - started < HEADER_SECONDS + 10
    assert cut_off is not None
    assert cut_off < HEADER_SECONDS + 3


def test_a_thousand_half_sent_requests_from_one_address_leave_health_answering(
    server: Server,
) -> None:
    # As on a host that gives a process 1,024 descriptors.
    resource.prlimit(server.process.pid, resource.RLIMIT_NOFILE, (1024, 1024))
    crowd: list[socket.socket] = []
    try:
        for _ in range(1030):
            try:
                conn = _connect(server, "127.0.0.2")
                conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                crowd.append(conn)
            except OSError:
                break
        started = time.monotonic()
        with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.3")) as other:
            answer = other.get(f"{server.base_url}/health", timeout=5)
        assert answer.status_code == 200
        assert time.monotonic() - started < 2
    finally:
        for conn in crowd:
            conn.close()
    refusals = server.log_text().count("connection refused")
    # ~966 refusals, logged at a bounded rate: a line per 10 s, not one each.
    assert 1 <= refusals <= 5, refusals


def test_sigterm_with_open_streams_exits_within_10_s(server: Server) -> None:
    match = httpx.post(
        f"{server.base_url}/v1/matches",
        json={"seats": [{"kind": "human"}, {"kind": "human"}]},
        timeout=5,
    ).json()
    stream_url = f"{server.base_url}/v1/matches/{match['match']['id']}/events/stream"
    ended: list[float] = []
    # Each stream's first line (the deal, sent at once): it is open.
    opened = [threading.Event() for _ in range(3)]

    def follow(open_: threading.Event) -> None:
        with httpx.stream("GET", stream_url, timeout=30) as answer:
            for _ in answer.iter_lines():
                open_.set()
        ended.append(time.monotonic())

    followers = [threading.Thread(target=follow, args=(o,)) for o in opened]
    for follower in followers:
        follower.start()
    assert all(o.wait(10) for o in opened)
    started = time.monotonic()
    server.process.terminate()
    server.process.wait(12)
    took = time.monotonic() - started
    for follower in followers:
        follower.join(5)
    assert took < 10, server.log_text()[-3000:]
    assert len(ended) == 3  # each stream was ended, so its client reconnects elsewhere
    assert "Application shutdown complete" in server.log_text()
