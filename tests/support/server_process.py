"""The real server process, for tests that go over the wire.

``start_server(database_url, folder)`` runs ``scopa serve`` on a free loopback port and
waits for ``/ready``. ``Server.stop()`` ends it with SIGTERM, as a process manager would,
and says whether it shut down cleanly (its AI worker processes ended with it, nothing
leaked); ``Server.kill()`` is a crash: SIGKILL to the server and the AI worker processes
it started, with no chance to clean up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 60.0
STOP_SECONDS = 20.0
# How long the processes the server started (AI workers, their fork server, the
# multiprocessing resource tracker) may take to end once the server has.
CHILDREN_SECONDS = 5.0
# The marks of the modules that run several servers on one Postgres at once, each with
# its pools (infra/db.py: up to 20 connections a process). `alone`: their latency and
# liveness bounds run out under the parallel part's load on two cores, so .ci/run runs
# them by themselves; under any `-n`, the group keeps them on one worker, one after
# another, within the server's max_connections (100 by default).
FLEET = [
    pytest.mark.xdist_group("postgres-fleet"),
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.alone,
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    base_url: str
    database_url: str
    log: Path
    # Processes of the server's group still running after a stop() had waited for them.
    left_behind: list[int] = field(default_factory=list)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM, then SIGKILL if it hangs; the exit code (uvicorn re-raises the SIGTERM
        it handled, so a clean stop is 0 or -15)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.kill()
        self.left_behind = self.wait_for_group()
        self._kill_group()
        return self.process.returncode

    def kill(self) -> None:
        """A crash: the whole process group at once, as when a machine or container dies."""
        self._kill_group()
        self.process.wait()

    def _kill_group(self) -> None:
        # The server leads a session of its own, so its group is exactly the server and
        # the AI workers it forked; nothing else is reached.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def wait_for_group(self, seconds: float = CHILDREN_SECONDS) -> list[int]:
        """The processes of the server's group still running once ``seconds`` have passed
        or, sooner, none at all."""
        deadline = time.monotonic() + seconds
        while (alive := running_in_group(self.process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        return alive

    def assert_stops_cleanly(self) -> None:
        code = self.stop()
        log = self.log_text()
        assert code in (0, -signal.SIGTERM), log[-4000:]
        assert "Application shutdown complete" in log
        assert not self.left_behind, f"processes outlived the server: {self.left_behind}"
        # The resource tracker's "leaked semaphore" warning, once the group has ended.
        assert "resource_tracker" not in log, log[-4000:]

    def wait_ready(self, seconds: float = READY_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                if httpx.get(f"{self.base_url}/ready", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None:
                pytest.fail(f"the server exited before it was ready:\n{self.log_text()[-4000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"not ready in {seconds:.0f} s:\n{self.log_text()[-4000:]}")
            time.sleep(0.1)


def running_in_group(group: int) -> list[int]:
    """The processes of process group ``group`` still running (zombies are done)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # After the command name in parentheses: state, parent, process group.
            state, _parent, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue  # ended while being looked at
        if int(pgrp) == group and state != "Z":
            running.append(int(stat.parent.name))
    return running


def start_server(
    database_url: str,
    folder: Path,
    env: Mapping[str, str] | None = None,
    *,
    port: int | None = None,
    wait: bool = True,
) -> Server:
    """``scopa serve`` on ``database_url``, its log in ``folder``; ``env`` adds to or
    overrides the defaults below. The caller stops or kills it in a ``finally``."""
    port = port or free_port()
    server = _spawn(
        ["serve", "--host", "127.0.0.1", "--port", str(port)],
        database_url,
        folder / f"server-{port}-{time.monotonic_ns()}.log",
        env,
        f"http://127.0.0.1:{port}",
    )
    if wait:
        try:
            server.wait_ready()
        except BaseException:
            server.kill()
            raise
    return server


def start_worker(database_url: str, folder: Path, env: Mapping[str, str] | None = None) -> Server:
    """``scopa worker`` on ``database_url``, as ``start_server`` does ``scopa serve``, once
    it plays AI turns."""
    worker = _spawn(["worker"], database_url, folder / f"worker-{time.monotonic_ns()}.log", env, "")
    deadline = time.monotonic() + READY_SECONDS
    while "AI worker" not in worker.log_text():
        if worker.process.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            pytest.fail(f"the worker did not start:\n{worker.log_text()[-4000:]}")
        time.sleep(0.1)
    return worker


def _spawn(
    arguments: list[str],
    database_url: str,
    log: Path,
    env: Mapping[str, str] | None,
    base_url: str,
) -> Server:
    full_env = {
        **os.environ,
        "SCOPA_DATABASE_URL": database_url,
        "SCOPA_LIMITS": "off",
        # Matches of AI seats only play at once rather than at a watchable pace.
        "SCOPA_AI_ONLY_MOVE_SECONDS": "0",
        # Human seats only by default: one worker keeps the AI pool off the shared cores.
        "SCOPA_AI_WORKERS": "1",
        **(env or {}),
    }
    # `python -m scopa.cli` is the `scopa` entry point, run from this checkout: an
    # installed copy of the package could be older than the code under test.
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "scopa.cli", *arguments],
            cwd=ROOT,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return Server(process, base_url, database_url, log)


@contextlib.contextmanager
def two_servers_on(
    database_url: str, folder: Path, env: Mapping[str, str] | None = None
) -> Iterator[tuple[Server, Server]]:
    """Two ``scopa serve`` processes on one database, stopped (the second first) after."""
    first = start_server(database_url, folder, env)
    try:
        second = start_server(database_url, folder, env)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()
