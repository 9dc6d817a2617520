"""deploy/nginx.conf made runnable outside compose, for tests: the replicas' names
(which resolve only on compose's network) become the addresses given, and nginx listens,
keeps its pid and its temporary files where the test says."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "nginx.conf"


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
