"""One client trying to crowd out the rest, against real server processes: a fresh
X-Forwarded-For on every request, a flood of joins, more waiting matches and streams than
its share, the same client spread over two processes, and a process killed while it
holds stream slots. Each limit answers 429 with Retry-After (a stream: 200 with only
``retry:``) and lets the client through again once that is over.

Distinct clients are distinct loopback source addresses (127.0.0.x).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.eventually import eventually
from tests.support.reliability import ReliabilityRecord
from tests.support.server_process import Server, start_server

pytestmark = pytest.mark.slow

HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
WAITING = {"seats": [{"kind": "human"}, {"kind": "open"}]}
OPEN = {"seats": [{"kind": "open"}, {"kind": "open"}, {"kind": "human"}, {"kind": "open"}]}
DAY = 24 * 60 * 60


@contextmanager
def serving(database_url: str, folder: Path, **limits: str) -> Iterator[Server]:
    # Streams end soon: a test that is let through reads one to its end. Limits count in
    # fixed windows of the wall clock: day-long ones, unless a test waits one out, so that
    # a test's requests fall in one window rather than in two when a minute turns over
    # among them (a loaded machine once spread nine joins across such a turn).
    env = {
        "SCOPA_LIMITS": "on",
        "SCOPA_STREAM_SECONDS": "2",
        "SCOPA_LIMIT_WINDOW_SECONDS": str(DAY),
        **limits,
    }
    server = start_server(database_url, folder, env)
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def client(server: Server, source: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(transport=transport, base_url=server.base_url, timeout=10) as http:
        yield http


async def create(http: httpx.AsyncClient, body: dict[str, Any], **headers: str) -> httpx.Response:
    return await http.post("/v1/matches", json=body, headers=headers)


def retry_after(answer: httpx.Response) -> int:
    assert answer.status_code == 429, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["type"].endswith("/rate-limited")
    return int(answer.headers["retry-after"])


async def test_a_fresh_x_forwarded_for_each_time_buys_nothing(
    sqlite_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "limits: a fresh X-Forwarded-For on every creation"
    # Twenty-second windows rather than a day's, so that waiting one out is short, yet
    # long enough for twelve creations on a loaded machine.
    window = 20
    limits = {"SCOPA_RATE_LIMIT": "3", "SCOPA_LIMIT_WINDOW_SECONDS": str(window)}
    with serving(sqlite_url, tmp_path, **limits) as server:
        async with client(server) as http:
            # Windows are fixed spans of the clock this test shares with the server: the
            # creations start as one begins, so that they all fall in it.
            await asyncio.sleep(window - time.time() % window)
            answers = [
                await create(http, HUMANS, **{"X-Forwarded-For": f"198.51.100.{n}"})
                for n in range(12)
            ]
            assert [a.status_code for a in answers] == [201] * 3 + [429] * 9
            wait = retry_after(answers[-1])
            assert 1 <= wait <= window
            async with client(server, "127.0.0.2") as other:
                assert (await create(other, HUMANS)).status_code == 201  # its own quota
            await asyncio.sleep(wait)
            assert (await create(http, HUMANS)).status_code == 201
    reliability_log.cases, reliability_log.requests = 12, 14
    reliability_log.notes = f"3 of 12 creations with forged addresses through; again after {wait} s"


async def test_behind_a_trusted_proxy_each_client_has_its_own_quota(
    sqlite_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "limits: clients behind a trusted proxy, and a direct one"
    limits = {"SCOPA_RATE_LIMIT": "1", "SCOPA_TRUSTED_PROXIES": "127.0.0.2"}
    with serving(sqlite_url, tmp_path, **limits) as server:
        async with client(server, "127.0.0.2") as proxy, client(server, "127.0.0.3") as direct:
            for n in range(3):
                forwarded = {"X-Forwarded-For": f"203.0.113.99, 192.0.2.{n}"}
                assert (await create(proxy, HUMANS, **forwarded)).status_code == 201
            retry_after(await create(proxy, HUMANS, **{"X-Forwarded-For": "192.0.2.1"}))
            # Not a trusted proxy: its header is not believed.
            assert (
                await create(direct, HUMANS, **{"X-Forwarded-For": "192.0.2.7"})
            ).status_code == 201
            retry_after(await create(direct, HUMANS, **{"X-Forwarded-For": "192.0.2.8"}))
    reliability_log.cases, reliability_log.requests = 4, 6


async def test_one_client_cannot_take_every_open_seat(
    sqlite_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "limits: one client joining every open seat"
    with serving(sqlite_url, tmp_path, SCOPA_JOINS_PER_MINUTE="5") as server:
        async with client(server) as http, client(server, "127.0.0.2") as other:
            ids = []
            for _ in range(3):
                made = await create(other, OPEN)
                ids.append(made.json()["match"]["id"])
            joins = [
                await http.post(f"/v1/matches/{match_id}/seats/{seat}/join")
                for match_id in ids
                for seat in (0, 1, 3)
            ]
            assert [j.status_code for j in joins] == [200] * 5 + [429] * 4
            assert 1 <= retry_after(joins[-1]) <= DAY
            # The seats left are there for everybody else.
            assert (await other.post(f"/v1/matches/{ids[2]}/seats/3/join")).status_code == 200
    reliability_log.cases, reliability_log.requests = 9, 13
    reliability_log.notes = "5 of 9 joins let through, the other seats left to others"


async def test_waiting_matches_and_streams_at_once(
    sqlite_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "limits: waiting matches and streams held at once"
    limits = {"SCOPA_WAITING_PER_ADDRESS": "2", "SCOPA_STREAMS_PER_ADDRESS": "2"}
    with serving(sqlite_url, tmp_path, **limits) as server:
        async with client(server) as http, client(server, "127.0.0.2") as other:
            first = (await create(http, WAITING)).json()
            assert (await create(http, WAITING)).status_code == 201
            assert retry_after(await create(http, WAITING)) <= 10
            assert (await create(other, WAITING)).status_code == 201
            token = first["tokens"][0]["token"]
            aborted = await http.post(
                f"/v1/matches/{first['match']['id']}/abort",
                headers={"Authorization": f"Bearer {token}"},
            )
            assert aborted.status_code == 200
            assert (await create(http, WAITING)).status_code == 201

            match_id = (await create(http, HUMANS)).json()["match"]["id"]
            stream = f"/v1/matches/{match_id}/events/stream"
            async with http.stream("GET", stream) as one, http.stream("GET", stream) as two:
                # Each kept: a line iterator dropped and collected closes its connection.
                held = [opened.aiter_lines() for opened in (one, two)]
                for lines in held:
                    while "deal_started" not in await anext(lines):
                        pass
                third = await http.get(stream)
                assert third.status_code == 200
                assert third.text.split() == ["retry:", "2000"]
                assert retry_after(await http.get(f"/v1/matches/{match_id}/events?wait=1"))
                assert "event: deal_started" in (await other.get(stream)).text
            # Closed: the slots are free again.
            async with http.stream("GET", stream) as again:
                lines = again.aiter_lines()
                while "deal_started" not in await anext(lines):
                    pass
    reliability_log.cases, reliability_log.requests = 2, 13


@pytest.mark.postgres
async def test_limits_hold_across_processes_and_a_dead_ones_slots_lapse(
    postgres_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "limits: two processes on one Postgres, one killed"
    # A short lease: what is checked is that a dead process's slot lapses within it.
    lease = 3
    limits = {
        "SCOPA_RATE_LIMIT": "3",
        "SCOPA_STREAMS_PER_ADDRESS": "1",
        "SCOPA_STREAM_LEASE_SECONDS": str(lease),
    }
    with (
        serving(postgres_url, tmp_path, **limits) as one,
        serving(postgres_url, tmp_path, **limits) as two,
    ):
        async with client(one) as first, client(two) as second:
            assert (await create(first, HUMANS)).status_code == 201
            assert (await create(second, HUMANS)).status_code == 201
            made = await create(first, HUMANS)
            assert made.status_code == 201
            retry_after(await create(second, HUMANS))
            stream = f"/v1/matches/{made.json()['match']['id']}/events/stream"
            async with first.stream("GET", stream) as held:
                lines = held.aiter_lines()
                while "deal_started" not in await anext(lines):
                    pass
                assert (await second.get(stream)).text.split() == ["retry:", "2000"]
                one.kill()  # its lease on the stream stays behind, unrenewed
            started = time.monotonic()

            async def freed_slot() -> bool:
                return (await second.get(stream)).text.split() != ["retry:", "2000"]

            await eventually(freed_slot, seconds=lease + 5, every=0.2)
    reliability_log.cases, reliability_log.faults = 2, 1
    freed = time.monotonic() - started
    reliability_log.notes = f"the killed process's stream slot freed after {freed:.0f} s"
