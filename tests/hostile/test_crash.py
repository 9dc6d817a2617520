"""Crashes: the server process SIGKILLed (with the AI workers it started) in the middle of
things, then started again on the same database and port, as a supervisor would.

During play: matches of human seats (and humans against the AI) with moves in flight at
the moment of each crash. During an AI turn: a match of AI seats only, thinking for a
while per move. Afterwards every match plays on to the end, the store is consistent,
nothing acknowledged is lost, and an AI turn left pending by the crash is played within
seconds of the restart. On Postgres and on SQLite.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.audit import audit, stored_state
from tests.support.driver import Journal, Player, client
from tests.support.reliability import ReliabilityRecord
from tests.support.server_process import Server, free_port, start_server

# A hang fails the test, with every thread's stack, instead of holding up the run.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CRASHES = 2
# Liveness bounds, generous for a loaded machine: a match of target 1 takes seconds.
FINISH_SECONDS = 120.0
PENDING_AI_SECONDS = 10.0
WATCH_SECONDS = 60.0
# A slow AI, so that a crash lands in the middle of its thinking. Only an unseeded match's
# AI searches under the budget (a seeded one searches a fixed amount, quickly).
SLOW_AI = {"SCOPA_AI_BUDGET_MS": "1000"}


class Restarts:
    """Kills the server and starts it again on the same database and port."""

    def __init__(self, database_url: str, folder: Path, env: dict[str, str]) -> None:
        self.database_url = database_url
        self.folder = folder
        self.port = free_port()
        self.crashes = 0
        self.servers: list[Server] = []
        self.start(env)

    @property
    def server(self) -> Server:
        return self.servers[-1]

    def start(self, env: dict[str, str]) -> None:
        self.servers.append(start_server(self.database_url, self.folder, env, port=self.port))

    def kill(self) -> None:
        self.server.kill()
        self.crashes += 1

    async def restart(self, env: dict[str, str]) -> None:
        await asyncio.to_thread(self.start, env)

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def logs(self) -> str:
        return "\n".join(server.log_text()[-3000:] for server in self.servers)


def two_player(kinds: list[str], seed: int) -> dict[str, Any]:
    seats = [{"kind": "ai", "level": k[3:]} if k.startswith("ai:") else {"kind": k} for k in kinds]
    return {"seats": seats, "rules": {"target": 1}, "seed": seed}


async def test_crash_with_moves_in_flight(
    database_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    backend = database_url.split(":")[0].split("+")[0]
    reliability_log.check = f"crash: server killed with moves in flight ({backend})"
    restarts = await asyncio.to_thread(Restarts, database_url, tmp_path, {})
    journal = Journal()
    setups = [two_player(["human", "human"], seed) for seed in range(4)]
    setups += [two_player(["human", "ai:easy"], seed) for seed in range(4, 6)]
    try:
        async with client(restarts.server.base_url, connections=24) as http:
            player = Player(http, journal, server_may_vanish=True)
            created = [await player.create(setup) for setup in setups]
            matches = [c for c in created if c is not None]
            assert len(matches) == len(setups), journal.breaches

            async def crash_while_moving() -> None:
                for number in range(1, CRASHES + 1):
                    # Bounded wait for enough play, then for a move on the wire.
                    for _ in range(20_000):
                        if len(journal.acks) >= 40 * number and journal.moves_in_flight:
                            break
                        await asyncio.sleep(0.002)
                    restarts.kill()
                    await restarts.restart({})

            deadline = time.monotonic() + FINISH_SECONDS
            finals = await asyncio.gather(
                crash_while_moving(), *(player.play_match(*m, deadline) for m in matches)
            )
        checked = await audit(database_url, [m for m, _ in matches], journal.acks)
    finally:
        await asyncio.to_thread(restarts.stop)

    reliability_log.cases = len(matches)
    reliability_log.requests = journal.requests
    reliability_log.faults = restarts.crashes
    reliability_log.moves_lost = checked.moves_lost
    reliability_log.failures = len(journal.breaches) + len(checked.problems)
    reliability_log.notes = (
        f"{journal.unanswered} requests cut off by the crashes, "
        f"{len(journal.acks)} moves acknowledged"
    )
    assert journal.breaches == [], restarts.logs()
    assert checked.problems == []
    assert checked.moves_lost == 0
    assert None not in finals[1:]
    assert checked.finished == len(matches)
    assert restarts.crashes == CRASHES
    assert journal.unanswered > 0  # the crashes cut requests off


async def spectate(http: httpx.AsyncClient, match_id: str) -> dict[str, Any] | None:
    try:
        answer = await http.get(f"/v1/matches/{match_id}")
    except httpx.TransportError:
        return None
    return dict(answer.json()) if answer.status_code == 200 else None


async def wait_for(
    http: httpx.AsyncClient, match_id: str, done: Any, seconds: float
) -> dict[str, Any] | None:
    """Poll the spectator view until ``done(view)``; the view, or None when time ran out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = await spectate(http, match_id)
        if view is not None and done(view):
            return view
        await asyncio.sleep(0.05)
    return None


# The crash must land while the AI thinks, between two of its moves a second apart: on
# cores shared with other workers the poll that sees a move can come after the match ended.
@pytest.mark.alone
async def test_crash_during_an_ai_turn(
    database_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    backend = database_url.split(":")[0].split("+")[0]
    reliability_log.check = f"crash: server killed while the AI thinks ({backend})"
    restarts = await asyncio.to_thread(Restarts, database_url, tmp_path, SLOW_AI)
    resumed_after: list[float] = []
    requests = 0

    async def count(_request: httpx.Request) -> None:
        nonlocal requests
        requests += 1

    try:
        async with client(restarts.server.base_url, connections=4) as http:
            http.event_hooks["request"].append(count)
            body = {"seats": [{"kind": "ai", "level": "expert"}] * 2, "rules": {"target": 1}}
            created = await http.post("/v1/matches", json=body)
            assert created.status_code == 201, created.text
            match_id = created.json()["match"]["id"]
            version = 0
            for number in range(1, CRASHES + 1):
                # Just after an AI move is stored, the next AI turn has begun: crash then.
                moved = await wait_for(
                    http, match_id, lambda v, at=version: v["version"] > at + 1, WATCH_SECONDS
                )
                assert moved is not None, restarts.logs()
                await asyncio.sleep(0.05)
                restarts.kill()
                pending = await stored_state(database_url, match_id)
                assert pending is not None
                assert pending.status == "active", "the match ended before the crash"
                version = pending.version
                # The last restart runs at the default budget, so the match ends quickly.
                await restarts.restart(SLOW_AI if number < CRASHES else {})
                ready = time.monotonic()
                played = await wait_for(
                    http, match_id, lambda v, at=version: v["version"] > at, PENDING_AI_SECONDS
                )
                resumed_after.append(time.monotonic() - ready)
                assert played is not None, f"the pending AI turn was not played: {restarts.logs()}"
            finished = await wait_for(
                http, match_id, lambda v: v["status"] == "finished", FINISH_SECONDS
            )
            assert finished is not None, restarts.logs()
        checked = await audit(database_url, [match_id])
    finally:
        await asyncio.to_thread(restarts.stop)

    reliability_log.cases = 1
    reliability_log.requests = requests
    reliability_log.faults = restarts.crashes
    reliability_log.failures = len(checked.problems)
    reliability_log.notes = (
        "pending AI turn played "
        + ", ".join(f"{s:.1f}" for s in resumed_after)
        + " s after the restart was ready"
    )
    assert checked.problems == []
    assert checked.finished == 1


@pytest.mark.postgres
async def test_one_of_two_processes_killed_while_the_ai_thinks(
    postgres_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "crash: one of two server processes killed while the AI thinks"
    # Quicker than SLOW_AI, so the match ends soon, still long enough to be caught at it.
    env = {"SCOPA_AI_BUDGET_MS": "150"}
    doomed = await asyncio.to_thread(start_server, postgres_url, tmp_path, env)
    survivor: Server | None = None
    waited = 0.0
    requests = 0

    async def count(_request: httpx.Request) -> None:
        nonlocal requests
        requests += 1

    try:
        survivor = await asyncio.to_thread(start_server, postgres_url, tmp_path, env)
        async with (
            client(doomed.base_url, connections=2) as on_doomed,
            client(survivor.base_url, connections=2) as http,
        ):
            on_doomed.event_hooks["request"].append(count)
            http.event_hooks["request"].append(count)
            body = {"seats": [{"kind": "ai", "level": "expert"}] * 2, "rules": {"target": 1}}
            created = await on_doomed.post("/v1/matches", json=body)
            assert created.status_code == 201, created.text
            match_id = created.json()["match"]["id"]
            moved = await wait_for(http, match_id, lambda v: v["version"] >= 2, WATCH_SECONDS)
            assert moved is not None, doomed.log_text()[-3000:]
            doomed.kill()
            pending = await stored_state(postgres_url, match_id)
            assert pending is not None
            assert pending.status == "active", "the match ended before the crash"
            killed = time.monotonic()
            # The survivor finds the match on its periodic sweep (every 5 s) at the latest.
            played = await wait_for(
                http,
                match_id,
                lambda v, at=pending.version: v["version"] > at,
                2 * PENDING_AI_SECONDS,
            )
            waited = time.monotonic() - killed
            assert played is not None, survivor.log_text()[-3000:]
            finished = await wait_for(
                http, match_id, lambda v: v["status"] == "finished", FINISH_SECONDS
            )
            assert finished is not None, survivor.log_text()[-3000:]
        checked = await audit(postgres_url, [match_id])
    finally:
        doomed.stop()
        if survivor is not None:
            survivor.stop()

    reliability_log.cases = 1
    reliability_log.requests = requests
    reliability_log.faults = 1
    reliability_log.failures = len(checked.problems)
    reliability_log.notes = f"the other process played the pending AI turn after {waited:.1f} s"
    assert checked.problems == []
    assert checked.finished == 1
