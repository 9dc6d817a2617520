"""The AI as a service under hostile load and faults, over real processes.

- A flood from one address (matches of AI seats only playing flat out, loops of expert
  hints, hints whose clients leave at once) while a human plays an expert: the human's AI
  replies keep a median under 0.3 s and none (but one, read generously) over 2 s.
- A ``scopa worker`` SIGKILLed in the middle of an AI turn: another worker plays it
  within 5 s, and the log holds that move once.
- A process of the AI pool SIGKILLed: the pool is replaced without a restart, ``/ready``
  says ``"ai": "missing"`` meanwhile, and the AI plays again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import statistics
import time
from pathlib import Path

import asyncpg
import httpx
import pytest

from bench.ai_service import FOUR_EXPERTS, ai_replies, bearer, create
from tests.support.audit import audit
from tests.support.reliability import ReliabilityRecord
from tests.support.server_process import Server, start_server, start_worker

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

# Quotas are not what these tests are about; the flood is only as hostile without them.
UNLIMITED = {"SCOPA_LIMITS": "off", "SCOPA_RATE_LIMIT": "0"}
REPLIES = 30
KILL_REPLAY_SECONDS = 5.0


async def hint_loop(http: httpx.AsyncClient, stop: asyncio.Event, asked: list[int]) -> None:
    """Expert hints for a seat on its turn, ten a second, until ``stop``: 12 loops ask 60
    times what the per-address hint quota lets through (which is off here)."""
    match_id, tokens = await create(http, {"seats": [{"kind": "human"}] * 2})
    view = (await http.get(f"/v1/matches/{match_id}", headers=bearer(tokens[0]))).json()
    token = tokens[view["turn"]]
    while not stop.is_set():
        answer = await http.get(
            f"/v1/matches/{match_id}/hint", params={"level": "expert"}, headers=bearer(token)
        )
        assert answer.status_code == 200, answer.text
        asked.append(1)
        await asyncio.sleep(0.1)


async def abandoned_hints(base_url: str, count: int) -> int:
    """``count`` hints sent together, each on a connection closed as soon as it is sent:
    their clients are gone before the AI could answer most of them."""
    async with httpx.AsyncClient(base_url=base_url) as http:
        match_id, tokens = await create(http, {"seats": [{"kind": "human"}] * 2})
        view = (await http.get(f"/v1/matches/{match_id}", headers=bearer(tokens[0]))).json()
        token = tokens[view["turn"]]
    host, port = base_url.removeprefix("http://").split(":")
    request = (
        f"GET /v1/matches/{match_id}/hint?level=expert HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {token}\r\n\r\n"
    ).encode()
    connections = [await asyncio.open_connection(host, int(port)) for _ in range(count)]
    for _, writer in connections:
        writer.write(request)
    await asyncio.gather(*(writer.drain() for _, writer in connections))
    await asyncio.sleep(0.05)  # read by the server, not yet answered for the most part
    for _, writer in connections:
        writer.close()
    await asyncio.gather(*(w.wait_closed() for _, w in connections), return_exceptions=True)
    return count


def metric(text: str, name: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# What it measures is the reply time of the server's own AI pool: other workers' tests on
# the same cores would measure them instead.
@pytest.mark.alone
async def test_a_flood_from_one_address_leaves_the_human_s_ai_prompt(
    postgres_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "AI flood: AI-only matches and hints from one address"
    server = await asyncio.to_thread(
        start_server, postgres_url, tmp_path, {**UNLIMITED, "SCOPA_AI_WORKERS": "2"}
    )
    stop = asyncio.Event()
    asked: list[int] = []
    try:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            quiet = await ai_replies(http, 5)
            floods = [await create(http, FOUR_EXPERTS) for _ in range(30)]
            loops = [asyncio.create_task(hint_loop(http, stop, asked)) for _ in range(12)]
            dropped = asyncio.create_task(abandoned_hints(server.base_url, 150))
            flooded = await ai_replies(http, REPLIES)
            stop.set()
            await asyncio.gather(*loops, dropped)
            scraped = (await http.get("/metrics")).text
            bots_moved = [
                (await http.get(f"/v1/matches/{match_id}")).json()["version"]
                for match_id, _ in floods
            ]
    finally:
        stop.set()
        await asyncio.to_thread(server.stop)

    median, p99 = statistics.median(flooded), percentile(flooded, 0.99)
    slow = [r for r in flooded if r >= 2.0]
    reliability_log.cases = len(flooded)
    reliability_log.requests = len(asked) + 150
    reliability_log.notes = (
        f"AI reply median {median:.3f} s, p99 {p99:.3f} s under the flood "
        f"(quiet median {statistics.median(quiet):.3f} s); {len(asked)} expert hints, "
        f"{metric(scraped, 'scopa_hints_abandoned_total'):.0f} of 150 abandoned ones dropped"
    )
    reliability_log.failures = int(median >= 0.3) + int(len(slow) > 1)
    assert median < 0.3, flooded
    assert len(slow) <= 1, flooded  # p99 read generously: one outlier of 30
    # The flood was real: the AI-only matches played (behind the human's turns, so how far
    # depends on how fast the human's replies came), and hints were answered...
    assert sum(bots_moved) > 0
    assert len(asked) > 12
    # ...and the abandoned hints were dropped, not computed.
    assert metric(scraped, "scopa_hints_abandoned_total") > 0


async def lease_holder(database_url: str) -> tuple[str, str, int] | None:
    """The AI turn leased now: its match, its holder and the match's version."""
    dsn = database_url.replace("postgresql+asyncpg", "postgresql")
    conn = await asyncpg.connect(dsn)
    try:
        row = await conn.fetchrow(
            "SELECT t.match_id, t.leased_by, m.version FROM ai_turns t"
            " JOIN matches m ON m.id = t.match_id"
            " WHERE t.lease_until > extract(epoch from now())"
        )
    finally:
        await conn.close()
    return None if row is None else (row[0], row[1], row[2])


async def test_a_worker_killed_mid_turn_leaves_the_turn_to_another(
    postgres_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "worker killed: SIGKILL of a scopa worker mid-turn"
    # A slow AI, so that the kill lands in the middle of a decision.
    slow = {**UNLIMITED, "SCOPA_AI_BUDGET_MS": "1500", "SCOPA_AI_WORKERS": "1"}
    server = await asyncio.to_thread(
        start_server, postgres_url, tmp_path, {**UNLIMITED, "SCOPA_AI_IN_PROCESS": "off"}
    )
    workers: list[Server] = []
    try:
        for _ in range(2):
            worker = await asyncio.to_thread(start_worker, postgres_url, tmp_path, slow)
            workers.append(worker)
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            ready = (await http.get("/ready")).json()
            match_id, _ = await create(http, {"seats": [{"kind": "ai", "level": "expert"}] * 2})
            deadline = time.monotonic() + 30
            while (held := await lease_holder(postgres_url)) is None:
                assert time.monotonic() < deadline, "no worker claimed the turn"
                await asyncio.sleep(0.02)
            _, holder, version = held
            pid = int(holder.split(":")[-2])
            (victim,) = [w for w in workers if w.process.pid == pid]
            victim.kill()
            killed = time.monotonic()
            while (view := (await http.get(f"/v1/matches/{match_id}")).json())[
                "version"
            ] == version:
                assert time.monotonic() - killed < 30, "nobody played the turn"
                await asyncio.sleep(0.02)
            replayed = time.monotonic() - killed
    finally:
        for worker in workers:
            await asyncio.to_thread(worker.stop)
        await asyncio.to_thread(server.stop)
    # Once nobody plays on: the match as the log and the state both hold it.
    checked = await audit(postgres_url, [match_id])

    reliability_log.cases = 1
    reliability_log.faults = 1
    reliability_log.failures = len(checked.problems) + int(replayed >= KILL_REPLAY_SECONDS)
    reliability_log.notes = f"the killed worker's turn played by the other in {replayed:.2f} s"
    assert ready == {"status": "ready", "ai": "ready"}
    assert view["version"] > version
    assert replayed < KILL_REPLAY_SECONDS, replayed
    # Exactly once: the log replays to the state, gapless, each move stored once.
    assert checked.problems == []


def pool_processes(server: Server) -> list[int]:
    """The server's AI pool processes: the children of its children (the fork server's)."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            _state, parent, group = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if int(group) == server.process.pid:
            parents[int(stat.parent.name)] = int(parent)
    return [pid for pid, parent in parents.items() if parents.get(parent) == server.process.pid]


async def test_a_broken_pool_is_replaced_and_ready_says_so_meanwhile(
    sqlite_url: str, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "AI pool broken: SIGKILL of a pool process"
    server = await asyncio.to_thread(start_server, sqlite_url, tmp_path, UNLIMITED)
    seen: set[str] = set()
    try:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            before = pool_processes(server)
            assert before, "no AI pool process found"
            os.kill(before[0], signal.SIGKILL)
            deadline = time.monotonic() + 30
            # Until /ready has said missing, and then ready again.
            while True:
                answer = await http.get("/ready")
                assert answer.status_code == 200  # this process still serves
                ai = answer.json()["ai"]
                if ai == "ready" and "missing" in seen:
                    break
                seen.add(ai)
                assert time.monotonic() < deadline, seen
                await asyncio.sleep(0.01)
            # The AI plays again, on the new pool, with no restart.
            replies = await ai_replies(http, 2)
            scraped = (await http.get("/metrics")).text
    finally:
        await asyncio.to_thread(server.stop)

    replaced = metric(scraped, "scopa_ai_pool_replacements_total")
    reliability_log.cases = 1
    reliability_log.faults = 1
    reliability_log.failures = int(replaced != 1) + int("missing" not in seen)
    assert len(replies) == 2
    reliability_log.notes = (
        f"/ready told ai missing, then ready; AI replies after: "
        f"{', '.join(f'{r:.2f} s' for r in replies)}"
    )
    assert server.process.pid not in before
    assert "missing" in seen
    assert replaced == 1
    assert "first legal move" not in server.log_text()
