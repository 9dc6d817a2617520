"""One version everywhere: the package's (pyproject.toml), the API document's, the
command's; a changelog that never runs behind it, and the licence."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from scopa.api import __version__
from scopa.cli import OPENAPI_PATH, render_openapi

ROOT = Path(__file__).resolve().parents[2]
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


def semver(text: str) -> tuple[int, ...]:
    match = SEMVER.fullmatch(text)
    assert match, f"not a semantic version: {text!r}"
    return tuple(int(part) for part in match.groups())


def test_the_package_takes_its_version_from_the_one_place() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "scopa.api.__version__"}
    semver(__version__)


def test_the_api_document_carries_the_package_version() -> None:
    assert json.loads(render_openapi())["info"]["version"] == __version__
    committed = json.loads((ROOT / OPENAPI_PATH).read_text())
    assert committed["info"]["version"] == __version__


def test_the_command_says_its_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scopa.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (0, f"scopa {__version__}\n")


def test_the_changelog_never_runs_behind_the_version() -> None:
    headings = re.findall(r"^## \[(.+?)\](.*)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == ("Unreleased", "")
    released = []
    for name, rest in headings[1:]:
        assert re.fullmatch(r" - \d{4}-\d{2}-\d{2}", rest), f"{name}: no release date"
        released.append(semver(name))
    assert released == sorted(released, reverse=True), "newest release first"
    # Either the newest release, or the one being prepared in [Unreleased].
    assert semver(__version__) >= released[0]


def test_the_licence_is_mit() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the scopa authors\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
