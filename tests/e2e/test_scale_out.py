"""Scale-out on Postgres: three API processes on loopback ports, behind nothing, and two
``scopa worker`` processes; 40 matches played at once by bots on the human seats (AI seats
played by the workers alone, as compose runs them), each match watched by a spectator's
event stream on another process than its players', and one API process and one worker
SIGKILLed midway.

Clients spread over the processes, and each fails over to the next one when its own does
not answer, as clients behind a proxy would. Afterwards every match is finished, the store
holds every acknowledged move once (tests/support/audit.py replays each log), and every
spectator, resuming with Last-Event-ID after its stream was cut, holds exactly the whole
log: nothing lost, nothing twice.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.audit import audit
from tests.support.driver import ANSWER_SECONDS, Journal, Player
from tests.support.server_process import FLEET, Server, start_server, start_worker

pytestmark = [*FLEET, pytest.mark.timeout(300)]

PROCESSES = 3
MATCHES = 40
AI_MATCHES = 10  # of the 40, human against the AI; the rest two human seats
# Liveness bound, generous for a loaded machine: a match of target 1 is one or two deals.
FINISH_SECONDS = 150.0
# The kill comes once this many moves were acknowledged (a match of one deal has 36).
KILL_AFTER_ACKS = 300
ENV = {"SCOPA_LIMITS": "off", "SCOPA_AI_ONLY_MOVE_SECONDS": "0"}
WORKERS = 2
# The API processes play no AI turn: the workers do.
API_ENV = {**ENV, "SCOPA_AI_IN_PROCESS": "off"}


class Spread(httpx.AsyncBaseTransport):
    """Sends every request to one process of ``ports``, starting at ``first``; when a
    process refuses the connection, moves on to the next for this request's retry and
    every later one (the driver retries what got no answer)."""

    def __init__(self, ports: list[int], first: int, connections: int) -> None:
        self.ports = ports
        self.current = first
        self.inner = httpx.AsyncHTTPTransport(
            limits=httpx.Limits(max_connections=connections, keepalive_expiry=2.0)
        )

    @property
    def port(self) -> int:
        return self.ports[self.current % len(self.ports)]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        port = self.port
        request.url = request.url.copy_with(port=port)
        try:
            return await self.inner.handle_async_request(request)
        except httpx.ConnectError:
            if port == self.port:
                self.current += 1
            raise

    async def aclose(self) -> None:
        await self.inner.aclose()


def spread_client(servers: list[Server], first: int, connections: int) -> httpx.AsyncClient:
    ports = [int(server.base_url.rsplit(":", 1)[1]) for server in servers]
    return httpx.AsyncClient(
        base_url=servers[first].base_url,
        transport=Spread(ports, first, connections),
        timeout=ANSWER_SECONDS,
    )


def setup(number: int) -> dict[str, Any]:
    second = {"kind": "ai", "level": "easy"} if number < AI_MATCHES else {"kind": "human"}
    return {"seats": [{"kind": "human"}, second], "rules": {"target": 1}, "seed": 1300 + number}


async def started(database_url: str, folder: Path) -> tuple[list[Server], list[Server]]:
    """The API processes, then the workers."""
    # Together: their migrations take turns under Postgres's advisory lock.
    start = functools.partial(start_server, database_url, folder, API_ENV)
    servers = list(await asyncio.gather(*(asyncio.to_thread(start) for _ in range(PROCESSES))))
    work = functools.partial(start_worker, database_url, folder, ENV)
    workers = list(await asyncio.gather(*(asyncio.to_thread(work) for _ in range(WORKERS))))
    return servers, workers


async def test_three_processes_one_killed_every_match_and_stream_whole(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> None:
    database_url = new_postgres_database()
    servers, workers = await started(database_url, tmp_path)
    doomed, doomed_worker = servers[0], workers[0]
    players = [Journal() for _ in range(PROCESSES)]
    watchers = [Journal() for _ in range(PROCESSES)]
    try:
        async with (
            spread_client(servers, 0, 16) as on_0,
            spread_client(servers, 1, 16) as on_1,
            spread_client(servers, 2, 16) as on_2,
            spread_client(servers, 1, MATCHES) as watch_1,
            spread_client(servers, 2, MATCHES) as watch_2,
            spread_client(servers, 0, MATCHES) as watch_0,
        ):
            play_on = [
                Player(http, journal, server_may_vanish=True)
                for http, journal in zip((on_0, on_1, on_2), players, strict=True)
            ]
            # Process i's players are watched from process i + 1.
            watch_on = [
                Player(http, journal, server_may_vanish=True)
                for http, journal in zip((watch_1, watch_2, watch_0), watchers, strict=True)
            ]
            created = await asyncio.gather(
                *(play_on[n % PROCESSES].create(setup(n)) for n in range(MATCHES))
            )
            matches = [c for c in created if c is not None]
            assert len(matches) == MATCHES, [j.breaches for j in players]

            def acked() -> int:
                return sum(len(journal.acks) for journal in players)

            async def kill_midway() -> int:
                for _ in range(30_000):
                    if acked() >= KILL_AFTER_ACKS and players[0].moves_in_flight:
                        break
                    await asyncio.sleep(0.002)
                doomed.kill()
                doomed_worker.kill()
                return acked()

            deadline = time.monotonic() + FINISH_SECONDS
            results = await asyncio.gather(
                kill_midway(),
                *(
                    play_on[n % PROCESSES].play_match(match_id, tokens, deadline)
                    for n, (match_id, tokens) in enumerate(matches)
                ),
                *(
                    watch_on[n % PROCESSES].follow(match_id, deadline)
                    for n, (match_id, _) in enumerate(matches)
                ),
            )
            killed_at, finals, streamed = (
                results[0],
                results[1 : 1 + MATCHES],
                results[1 + MATCHES :],
            )
            assert killed_at < acked(), "the kill came after the play"
            logs = [await play_on[1].log_of(match_id) for match_id, _ in matches]
        acks = list(itertools.chain.from_iterable(journal.acks for journal in players))
        checked = await audit(database_url, [match_id for match_id, _ in matches], acks)
    finally:
        await asyncio.gather(*(asyncio.to_thread(process.stop) for process in (*servers, *workers)))

    journals = players + watchers
    assert [b for j in journals for b in j.breaches] == []
    assert None not in finals
    assert checked.problems == []
    assert checked.moves_lost == 0
    assert checked.finished == MATCHES
    for (match_id, _), log, seen in zip(matches, logs, streamed, strict=True):
        assert [e["seq"] for e in log] == list(range(1, len(log) + 1)), match_id
        assert log[-1]["type"] == "match_finished", match_id
        # Resumed where it broke off: the whole log, each event once, in order.
        assert seen == log, match_id
    # The kill cut the play of the doomed process's matches and the streams it served,
    # and both went on elsewhere.
    assert players[0].unanswered > 0
    assert watchers[PROCESSES - 1].unanswered > 0
    assert watchers[PROCESSES - 1].streams_resumed > 0
    for server in servers[1:]:
        server.assert_stops_cleanly()
    # The surviving worker played the killed one's AI turns, then stopped on SIGTERM.
    assert workers[1].stop() == 0, workers[1].log_text()[-4000:]
