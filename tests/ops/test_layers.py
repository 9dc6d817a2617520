"""The arrows between the layers point one way: api -> service -> domain, and
infra -> service -> domain. Only the composition root (infra/cli.py, which builds the
app, and infra/app_factory.py) may import api; migrations import infra, never the
reverse (infra finds the migrations folder without importing it)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("domain", "service", "api", "infra", "migrations")
# What each layer may import of the others (the standard library and packages are free,
# but for the frameworks named in FORBIDDEN_PACKAGES).
ALLOWED: dict[str, set[str]] = {
    "domain": set(),
    "service": {"domain"},
    "api": {"service", "domain"},
    "infra": {"service", "domain"},
    # The sealing migration reads old answers with the service's own sealing code.
    "migrations": {"infra", "service", "domain"},
}
COMPOSITION_ROOT = {"infra/cli.py", "infra/app_factory.py"}
# The domain is pure Scopa; the use cases know no web framework or database driver.
FORBIDDEN_PACKAGES: dict[str, set[str]] = {
    "domain": {"asyncio", "secrets", "time", "logging", "random", "litestar", "sqlalchemy"},
    "service": {"litestar", "sqlalchemy", "asyncpg", "aiosqlite", "httpx", "uvicorn"},
}


def imports_of(source: str) -> set[str]:
    """Top-level names of every module imported anywhere in the source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def modules() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def wrong_arrows(relative: str, source: str) -> list[str]:
    layer = relative.split("/")[0]
    allowed = ALLOWED[layer] | {layer}
    if relative in COMPOSITION_ROOT:
        allowed = allowed | {"api"}
    wrong = []
    for name in sorted(imports_of(source)):
        if name in LAYERS and name not in allowed:
            wrong.append(f"{relative} imports {name}")
        if name in FORBIDDEN_PACKAGES.get(layer, set()):
            wrong.append(f"{relative} imports {name}")
    return wrong


def test_every_module_is_walked() -> None:
    walked = {p.relative_to(ROOT).parts[0] for p in modules()}
    assert walked == set(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_no_import_points_the_wrong_way(layer: str) -> None:
    wrong = [
        arrow
        for path in modules()
        if path.relative_to(ROOT).parts[0] == layer
        for arrow in wrong_arrows(path.relative_to(ROOT).as_posix(), path.read_text())
    ]
    assert wrong == []


def test_the_check_sees_a_wrong_arrow() -> None:
    source = "import asyncio\nfrom infra.db import make_engine\n"
    assert wrong_arrows("domain/probe.py", source) == [
        "domain/probe.py imports asyncio",
        "domain/probe.py imports infra",
    ]
    assert wrong_arrows("service/probe.py", "from api.app import create_app\n") == [
        "service/probe.py imports api"
    ]
    assert wrong_arrows("infra/repositories.py", "import api.errors\n") == [
        "infra/repositories.py imports api"
    ]
    assert wrong_arrows("infra/cli.py", "from api.app import create_app\n") == []
