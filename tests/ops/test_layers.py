"""The arrows between the layers point one way: api -> service -> contract -> domain,
and infra -> service -> domain. The contract (the wire types and their descriptions)
knows only the domain it shows; the domain knows no wire. Above them all, the
composition root (the modules at the top of the package: scopa/cli.py, scopa/wiring.py,
scopa/worker.py) builds a process and may import every layer; no layer imports it. The
migrations import no project code at all: a revision is frozen as it was written,
whatever the code becomes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scopa"
LAYERS = ("domain", "contract", "service", "api", "infra", "migrations")
# The modules at the package's top: each builds a process (the app, the worker, the
# command line) out of every layer's parts.
COMPOSITION_ROOT = ("cli", "wiring", "worker")
# What each layer may import of the others (the standard library and packages are free,
# but for the frameworks named in FORBIDDEN_PACKAGES).
ALLOWED: dict[str, set[str]] = {
    "domain": set(),
    "contract": {"domain"},
    # The use cases answer in the contract's types: views, events as a viewer sees them.
    "service": {"contract", "domain"},
    "api": {"contract", "service", "domain"},
    # What is stored is the domain's, in storage's own codec: never the wire's.
    "infra": {"service", "domain"},
    "migrations": set(),
}
# The domain is pure Scopa; the use cases know no web framework or database driver.
FORBIDDEN_PACKAGES: dict[str, set[str]] = {
    "domain": {"asyncio", "secrets", "time", "logging", "random", "litestar", "sqlalchemy"},
    "service": {"litestar", "sqlalchemy", "asyncpg", "aiosqlite", "httpx", "uvicorn"},
}


def imports_of(source: str) -> set[str]:
    """What the source imports, anywhere in it: the part of the package it names
    (``scopa.domain.cards`` -> "domain", ``scopa.wiring`` -> "wiring"), or a package's
    top-level name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(_part(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(_part(node.module))
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("relative import")
    return found


def _part(module: str) -> str:
    names = module.split(".")
    return names[1] if names[0] == "scopa" and len(names) > 1 else names[0]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def layer_of(relative: str) -> str:
    """The layer of a path inside the package; a top-level module is the root."""
    first = relative.split("/")[0]
    return first if first in LAYERS else "root"


def wrong_arrows(relative: str, source: str) -> list[str]:
    layer = layer_of(relative)
    root = layer == "root"
    allowed = set(LAYERS) | set(COMPOSITION_ROOT) if root else ALLOWED[layer] | {layer}
    wrong = []
    for name in sorted(imports_of(source)):
        if name in (*LAYERS, *COMPOSITION_ROOT, "relative import") and name not in allowed:
            wrong.append(f"{relative} imports {name}")
        if name in FORBIDDEN_PACKAGES.get(layer, set()):
            wrong.append(f"{relative} imports {name}")
    return wrong


def test_every_module_is_walked() -> None:
    walked = {layer_of(p.relative_to(PACKAGE).as_posix()) for p in modules()}
    assert walked == {*LAYERS, "root"}
    roots = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert roots == set(COMPOSITION_ROOT)


@pytest.mark.parametrize("layer", [*LAYERS, "root"])
def test_no_import_points_the_wrong_way(layer: str) -> None:
    wrong = [
        arrow
        for path in modules()
        if layer_of(relative := path.relative_to(PACKAGE).as_posix()) == layer
        for arrow in wrong_arrows(relative, path.read_text())
    ]
    assert wrong == []


def test_the_check_sees_a_wrong_arrow() -> None:
    source = "import asyncio\nfrom scopa.infra.db import make_engine\n"
    assert wrong_arrows("domain/probe.py", source) == [
        "domain/probe.py imports asyncio",
        "domain/probe.py imports infra",
    ]
    assert wrong_arrows("service/probe.py", "from scopa.api.app import create_app\n") == [
        "service/probe.py imports api"
    ]
    assert wrong_arrows("domain/probe.py", "from scopa.contract.views import MatchView\n") == [
        "domain/probe.py imports contract"
    ]
    assert wrong_arrows("contract/probe.py", "from scopa.service.feed import Feed\n") == [
        "contract/probe.py imports service"
    ]
    assert wrong_arrows("infra/store.py", "import scopa.api.errors\n") == [
        "infra/store.py imports api"
    ]
    assert wrong_arrows("infra/store.py", "from scopa.wiring import build_app\n") == [
        "infra/store.py imports wiring"
    ]
    assert wrong_arrows("api/probe.py", "from .app import create_app\n") == [
        "api/probe.py imports relative import"
    ]
    assert wrong_arrows("wiring.py", "from scopa.api.app import create_app\n") == []
