"""The real server process on a fresh Postgres database, for tests that go over the wire.

``serve()`` starts ``scopa serve`` on a free loopback port and waits for ``/ready``
(``serve(server.database_url)``: another process on the same database);
``Server.stop()`` ends it with SIGTERM, as a process manager would, and says whether it
shut down cleanly. Whatever a test does, the process is gone when the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.server_process import Server, start_server

__all__ = ["Server", "serve"]


@pytest.fixture
def serve(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> Iterator[Callable[..., Server]]:
    """Call it for a running server on a database of its own, or on the one given."""
    started: list[Server] = []

    def start(database_url: str | None = None) -> Server:
        server = start_server(database_url or new_postgres_database(), tmp_path)
        started.append(server)
        return server

    try:
        yield start
    finally:
        # Before the database is dropped: the fixtures tear down in reverse order.
        for server in started:
            server.stop()
