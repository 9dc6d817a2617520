"""A throwaway Postgres server of the tests' own, to stop and start without disturbing
the machine's: ``initdb`` (as the postgres user: it refuses root) into a temporary
folder, on a free port of the loopback, with server ``settings`` of the test's choosing.
``freeze`` stops its processes dead (SIGSTOP) and ``thaw`` lets them go on: a database that
hangs rather than refuses. ``running_private_postgres()`` is a fixture's body.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import asyncpg
import pytest


def _bin(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if found is None:
        raise FileNotFoundError(f"{name}: no Postgres server binaries on this machine")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(args: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class PrivatePostgres:
    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        self.settings = dict(settings or {})
        self.folder = Path(tempfile.mkdtemp(prefix="scopa-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(
            _as_postgres(
                [
                    _bin("initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                ]
            ),
            check=True,
            capture_output=True,
        )

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    async def create_database(self, name: str) -> str:
        """A new database ``name``; its SQLAlchemy URL, as the server is configured with."""
        await self.fetchval(f'CREATE DATABASE "{name}"')
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{name}"

    async def fetchval(self, statement: str) -> Any:
        """The first value of one statement, as the administrator."""
        conn = await asyncpg.connect(self.dsn, timeout=5)
        try:
            return await conn.fetchval(statement)
        finally:
            await conn.close()

    def start(self) -> None:
        settings = {"listen_addresses": "127.0.0.1", "fsync": "off", **self.settings}
        options = " ".join(
            [f"-p {self.port} -k {self.folder}", *(f"-c {k}={v}" for k, v in settings.items())]
        )
        subprocess.run(
            _as_postgres(
                [
                    _bin("pg_ctl"),
                    "-D",
                    str(self.data),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "30",
                    "-l",
                    str(self.folder / "log"),
                    "start",
                ]
            ),
            check=True,
            capture_output=True,
        )

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            _as_postgres([_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"]),
            check=False,
            capture_output=True,
        )

    def is_ready(self) -> bool:
        probe = subprocess.run(
            [_bin("pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)], check=False
        )
        return probe.returncode == 0

    def wait_ready(self, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while not self.is_ready():
            if time.monotonic() > deadline:
                raise TimeoutError(f"private Postgres on {self.port} did not come up")
            time.sleep(0.1)

    def processes(self) -> list[int]:
        """The postmaster and its children (backends and helpers), by process id."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                # The fields after the command's closing parenthesis: state, then ppid.
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == postmaster:
                children.append(int(entry.name))
        return [postmaster, *children]

    def freeze(self) -> list[int]:
        """Stop every process of the server where it stands: connections stay open and
        new ones are accepted by the kernel, but nothing answers. Returns them for thaw."""
        frozen = self.processes()
        for pid in frozen:
            # A backend may have ended since it was listed.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        return frozen

    def thaw(self, frozen: list[int]) -> None:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def destroy(self) -> None:
        # A frozen server would not stop: let everything go on first.
        self.thaw(self.processes() if (self.data / "postmaster.pid").exists() else [])
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def running_private_postgres(
    settings: Mapping[str, str] | None = None,
) -> Iterator[PrivatePostgres]:
    """A started private server, destroyed afterwards; the test skips without the server
    binaries, unless ``CI`` is set: then it fails."""
    try:
        pg = PrivatePostgres(settings)
    except (FileNotFoundError, OSError) as error:
        if os.environ.get("CI"):
            pytest.fail(f"no private Postgres: {error!r}")
        pytest.skip(f"no private Postgres: {error!r}")
    try:
        pg.start()
        pg.wait_ready()
        yield pg
    finally:
        pg.destroy()
