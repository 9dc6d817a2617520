"""The SQLite file holds every hand and every token hash: only its owner may read it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from scopa.domain.match import Seat, new_match
from scopa.domain.rules import Rules
from scopa.infra.db import make_engine
from scopa.infra.migrate import migrate
from scopa.infra.stores import sql_stores
from scopa.service.ports import MatchRecord
from tests.support.writes import create


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The usual umask, under which a new file is readable by everyone."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("usual_umask")
async def test_the_database_and_its_wal_and_shm_are_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "scopa.db"
    url = f"sqlite+aiosqlite:///{path}"
    await migrate(url)
    assert mode(path) == 0o600

    engine = make_engine(url)
    try:
        state, events = new_match(Rules(), (Seat("human"), Seat("human")), 1)
        await create(sql_stores(engine).matches, MatchRecord("m" * 22, state, 0.0), events, {})
        # While a connection is open, the write-ahead log and its index exist.
        companions = [tmp_path / "scopa.db-wal", tmp_path / "scopa.db-shm"]
        assert {p.name: mode(p) for p in companions} == {p.name: 0o600 for p in companions}
    finally:
        await engine.dispose()
    assert mode(path) == 0o600


async def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "scopa.db"
    path.touch()
    path.chmod(0o640)
    await migrate(f"sqlite+aiosqlite:///{path}")
    assert mode(path) == 0o640
