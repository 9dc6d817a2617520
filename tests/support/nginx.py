"""deploy/nginx.conf made runnable outside compose, for tests: the replicas' names
(which resolve only on compose's network) become the addresses given, and nginx listens,
keeps its pid and its temporary files where the test says."""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support.server_process import free_port

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "nginx.conf"
# Liveness only: nginx answers its first /health in well under a second.
READY_SECONDS = 20.0


def local_conf(folder: Path, upstreams: list[str], listen: str = "127.0.0.1:80") -> Path:
    """A copy of the configuration in ``folder``, the ``api-N`` servers replaced in turn
    by ``upstreams`` ("host:port"); its path."""
    text = CONF.read_text()
    names = re.findall(r"\bserver (api-\d+:\d+)", text)
    assert len(names) == len(upstreams), names
    for name, address in zip(names, upstreams, strict=True):
        text = text.replace(f"server {name} ", f"server {address} ")
    text = text.replace("listen 80;", f"listen {listen};")
    text = text.replace("pid /tmp/nginx.pid;", f"pid {folder}/nginx.pid;")
    path = folder / "nginx.conf"
    path.write_text(text)
    return path


@contextlib.contextmanager
def running_nginx(folder: Path, upstreams: list[str]) -> Iterator[tuple[str, Path]]:
    """The configuration run on a free loopback port in front of ``upstreams``, once it
    answers /health: its URL and its log."""
    port = free_port()
    conf = local_conf(folder, upstreams, listen=f"127.0.0.1:{port}")
    log = folder / "nginx.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["nginx", "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_SECONDS
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                    break
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield base_url, log
    finally:
        process.terminate()
        process.wait(10)
