"""The web client's files go wherever the code goes: into the wheel (package-data) and
into the image (the Dockerfile copies scopa/, and .dockerignore keeps them)."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "scopa" / "api" / "static"


def test_every_static_file_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    # setuptools expands each pattern with glob, from the package's folder.
    patterns = config["package-data"]["scopa.api"]
    packaged = {path for pattern in patterns for path in (ROOT / "scopa" / "api").glob(pattern)}
    files = {p for p in STATIC.rglob("*") if p.is_file()}
    assert STATIC / "index.html" in files
    unpackaged = sorted(str(f.relative_to(ROOT)) for f in files - packaged)
    assert unpackaged == [], f"add them to [tool.setuptools.package-data] scopa.api: {unpackaged}"


def test_the_image_copies_the_static_files() -> None:
    copies = [
        line.split()[1:]
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
    ]
    assert ["scopa", "./scopa"] in copies
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert not [
        rule
        for rule in ignored
        if fnmatch.fnmatchcase("scopa/api/static/index.html", rule) or rule.startswith("scopa")
    ]
