"""The AI pool's processes (its fork server, its workers, the multiprocessing resource
tracker) end with the server however it ends, leaving nothing re-parented behind: a
SIGTERM to the whole process group while the pool is deciding (the workers die of it at
once and the server, stopping, used to start a new pool that outlived it), and a kill -9
of the server process alone (nothing told the pool, whose processes hold one another's
pipes open)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.support.eventually import until
from tests.support.server_process import STOP_SECONDS, Server, running_in_group, start_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

# Two workers, each decision a second long: the pool is mid-decision when the signal comes.
SLOW_POOL = {"SCOPA_AI_WORKERS": "2", "SCOPA_AI_BUDGET_MS": "1000"}
AI_ONLY = {"seats": [{"kind": "ai", "level": "expert"}, {"kind": "ai", "level": "expert"}]}
MATCHES = 3
# The server, the resource tracker, the fork server and its two workers.
POOL_PROCESSES = 5
DECIDING_SECONDS = 60.0


def deciding_server(sqlite_url: str, folder: Path) -> Server:
    """A server whose AI pool is busy with matches of AI seats only."""
    server = start_server(sqlite_url, folder, SLOW_POOL)
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        ids = []
        for _ in range(MATCHES):
            created = client.post("/v1/matches", json=AI_ONLY)
            assert created.status_code == 201, created.text
            ids.append(created.json()["match"]["id"])
        # Some AI move has been played: the pool is up and deciding the next ones.
        until(
            lambda: any(client.get(f"/v1/matches/{i}").json()["version"] > 0 for i in ids),
            seconds=DECIDING_SECONDS,
            every=0.1,
        )
    assert len(running_in_group(server.process.pid)) >= POOL_PROCESSES
    return server


def described(pids: list[int]) -> list[str]:
    def command(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:90].decode()
        except OSError:
            return "(gone)"

    return [f"{pid}: {command(pid)}" for pid in pids]


def assert_nothing_outlives(server: Server) -> None:
    server.process.wait(STOP_SECONDS)
    # The group keeps its id when its processes are re-parented: it finds them all.
    left = server.wait_for_group()
    assert not left, f"outlived the server: {described(left)}\n{server.log_text()[-3000:]}"


def test_a_sigterm_to_the_group_leaves_no_process(sqlite_url: str, tmp_path: Path) -> None:
    server = deciding_server(sqlite_url, tmp_path)
    try:
        os.killpg(server.process.pid, signal.SIGTERM)
        assert_nothing_outlives(server)
        assert "Application shutdown complete" in server.log_text()
    finally:
        server.kill()


def test_a_kill_9_of_the_server_alone_leaves_no_process(sqlite_url: str, tmp_path: Path) -> None:
    server = deciding_server(sqlite_url, tmp_path)
    try:
        server.process.kill()
        assert_nothing_outlives(server)
    finally:
        server.kill()
