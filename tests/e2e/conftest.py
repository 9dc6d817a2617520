"""The real server process on a fresh Postgres database, for tests that go over the wire.

``serve()`` starts ``scopa serve`` on a free loopback port and waits for ``/ready``
(``serve(server.database_url)``: another process on the same database);
``Server.stop()`` ends it with SIGTERM, as a process manager would, and says whether it
shut down cleanly. Whatever a test does, the process is gone when the test ends.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
READY_SECONDS = 60.0
STOP_SECONDS = 20.0


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
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def assert_stops_cleanly(self) -> None:
        code = self.stop()
        assert code in (0, -signal.SIGTERM), self.log_text()[-4000:]
        assert "Application shutdown complete" in self.log_text()


def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            if httpx.get(f"{server.base_url}/ready", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if server.process.poll() is not None:
            pytest.fail(f"the server exited before it was ready:\n{server.log_text()[-4000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"not ready in {READY_SECONDS:.0f} s:\n{server.log_text()[-4000:]}")
        time.sleep(0.1)


@pytest.fixture
def serve(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> Iterator[Callable[..., Server]]:
    """Call it for a running server on a database of its own, or on the one given."""
    started: list[Server] = []

    def start(database_url: str | None = None) -> Server:
        database_url = database_url or new_postgres_database()
        port = free_port()
        log = tmp_path / f"server-{port}.log"
        env = {
            **os.environ,
            "SCOPA_DATABASE_URL": database_url,
            "SCOPA_RATE_LIMIT": "0",
            # Human seats only: one worker keeps the AI pool from taking the shared cores.
            "SCOPA_AI_WORKERS": "1",
        }
        # `python -m infra.cli` is the `scopa` entry point, run from this checkout: an
        # installed copy of the package could be older than the code under test.
        command = [sys.executable, "-m", "infra.cli", "serve", "--host", "127.0.0.1"]
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [*command, "--port", str(port)],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        server = Server(process, f"http://127.0.0.1:{port}", database_url, log)
        started.append(server)
        _wait_ready(server)
        return server

    try:
        yield start
    finally:
        # Before the database is dropped: the fixtures tear down in reverse order.
        for server in started:
            server.stop()
