"""The connection guard (infra/http_protocol.py) in a uvicorn server of the test's own, over
raw sockets: each limit at work in isolation, with deadlines short enough to wait out.
tests/hostile/test_slow_clients.py and test_big_headers.py hold the real server process to
the same limits end to end."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import uvicorn

from scopa.infra.http_protocol import (
    BoundedLog,
    ConnectionLimits,
    RateLimitedAsyncioLog,
    guarded_protocol,
)
from tests.support.eventually import eventually

PROBLEM = b'{"type":"headers-too-large"}'
# Short enough to wait out, long enough that a request sent at once always beats them.
HEADER_SECONDS = 0.3
BODY_SECONDS = 0.3
REQUEST = b"GET / HTTP/1.1\r\nhost: x\r\n\r\n"


async def hello(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
    """An app that reads the whole body, then answers with its length."""
    assert scope["type"] == "http"
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = str(size).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


Connect = Callable[[], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]


@contextlib.asynccontextmanager
async def serving(**limits: Any) -> AsyncIterator[Connect]:
    """A server guarded by ``ConnectionLimits(**limits)`` (with the short deadlines above),
    and a way to connect to it."""
    limits = {"header_seconds": HEADER_SECONDS, "body_seconds": BODY_SECONDS, **limits}
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        hello,
        http=guarded_protocol(ConnectionLimits(**limits), PROBLEM),
        lifespan="off",
        log_config=None,
        access_log=False,
    )
    server = uvicorn.Server(config)
    running = asyncio.create_task(server.serve(sockets=[sock]))
    await eventually(lambda: server.started or running.done())
    assert server.started, running.exception()
    writers: list[asyncio.StreamWriter] = []

    async def connect() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writers.append(writer)
        return reader, writer

    try:
        yield connect
    finally:
        for writer in writers:
            writer.close()
        server.should_exit = True
        await running
        sock.close()


async def closed(reader: asyncio.StreamReader, within: float = 10.0) -> bytes:
    """What the server sent before it closed the connection (fails if it keeps it open)."""
    return await asyncio.wait_for(reader.read(), within)


async def answer(reader: asyncio.StreamReader) -> bytes:
    """One answer of ``hello``: its head and its body (the body's length, as digits)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    return head + await asyncio.wait_for(reader.readexactly(length), 10)


async def test_a_silent_connection_is_closed_once_its_headers_are_late() -> None:
    async with serving() as connect:
        reader, _ = await connect()
        assert await closed(reader) == b""


async def test_the_headers_clock_starts_again_after_each_answer() -> None:
    async with serving() as connect:
        reader, writer = await connect()
        for _ in range(2):
            # Each request sent well inside its deadline is served, on one connection.
            writer.write(REQUEST)
            assert (await answer(reader)).endswith(b"\r\n\r\n0")
            await asyncio.sleep(HEADER_SECONDS / 3)
        assert await closed(reader) == b""


async def test_a_body_that_stops_coming_is_cut_off() -> None:
    async with serving() as connect:
        reader, writer = await connect()
        writer.write(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n12345")
        assert await closed(reader) == b""


async def test_a_whole_body_is_served() -> None:
    async with serving() as connect:
        reader, writer = await connect()
        writer.write(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n0123456789")
        assert (await answer(reader)).endswith(b"\r\n\r\n10")


async def test_pipelined_requests_are_each_answered() -> None:
    async with serving() as connect:
        reader, writer = await connect()
        writer.write(REQUEST * 3)
        for _ in range(3):
            assert (await answer(reader)).startswith(b"HTTP/1.1 200")


async def test_headers_over_the_bound_are_answered_431_and_closed() -> None:
    async with serving(max_header_bytes=1024) as connect:
        reader, writer = await connect()
        writer.write(b"GET / HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 4096)
        sent = await closed(reader)
        assert sent.startswith(b"HTTP/1.1 431 ")
        assert b"content-type: application/problem+json" in sent
        assert sent.endswith(b"\r\n\r\n" + PROBLEM)
        # The refused request's further bytes are read and dropped, not answered.
        writer.write(b"b" * 4096 + b"\r\n\r\n")
        await writer.drain()


async def test_headers_just_under_the_bound_are_served() -> None:
    async with serving(max_header_bytes=1024) as connect:
        reader, writer = await connect()
        line = b"GET / HTTP/1.1\r\nhost: x\r\nx-big: "
        writer.write(line + b"a" * (1024 - len(line) - 4) + b"\r\n\r\n")
        assert (await answer(reader)).startswith(b"HTTP/1.1 200")


async def test_headers_over_the_bound_behind_an_unanswered_request_close_without_431() -> None:
    async with serving(max_header_bytes=1024, body_seconds=5.0) as connect:
        reader, writer = await connect()
        # One write: the first request is read whole, and the app has not answered it,
        # when the second one's headers run past the bound. A 431 would land inside the
        # first answer, so the connection is closed instead.
        writer.write(REQUEST + b"GET / HTTP/1.1\r\nhost: x\r\nx-big: " + b"a" * 4096)
        sent = await closed(reader)
        assert b"431" not in sent


async def test_one_address_over_its_cap_is_refused_at_once_and_others_still_served() -> None:
    async with serving(per_address=2, header_seconds=30.0) as connect:
        held = [await connect() for _ in range(2)]
        reader, _ = await connect()
        assert await closed(reader, within=5) == b""
        # A connection freed makes room for one more, once the server has seen it close.
        held[0][1].close()
        await held[0][1].wait_closed()

        async def served() -> bool:
            reader, writer = await connect()
            writer.write(REQUEST)
            with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
                return (await answer(reader)).startswith(b"HTTP/1.1 200")
            return False

        await eventually(served)


async def test_the_server_wide_cap_refuses_past_it() -> None:
    async with serving(max_connections=2, per_address=0, header_seconds=30.0) as connect:
        for _ in range(2):
            await connect()
        reader, _ = await connect()
        assert await closed(reader, within=5) == b""


def test_the_server_cap_stays_below_the_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert ConnectionLimits(max_connections=10**9).server_cap() == max(16, soft - 64)
    assert ConnectionLimits(max_connections=5).server_cap() == 5


def test_a_refusal_is_logged_once_per_period_with_the_count_since(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = BoundedLog(seconds=3600)
    with caplog.at_level(logging.WARNING, "scopa.connections"):
        for _ in range(3):
            log.warning("address", "refused")
        log.warning("server", "refused too")
        log.seconds = 0
        log.warning("address", "refused")
    assert [r.getMessage() for r in caplog.records] == [
        "refused",
        "refused too",
        "refused (2 more since the last line)",
    ]


def test_asyncio_accept_failures_are_let_through_once_per_period() -> None:
    limit = RateLimitedAsyncioLog(seconds=3600)
    record = logging.LogRecord(
        "asyncio", logging.ERROR, __file__, 1, "socket.accept() out of system resource", None, None
    )
    other = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "another", None, None)
    assert [limit.filter(record), limit.filter(record), limit.filter(other)] == [True, False, True]
