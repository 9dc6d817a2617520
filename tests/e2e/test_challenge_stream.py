"""A bot following its challenges on one server process hears, within moments, of a
challenge made through another process on the same Postgres database; reconnecting
with Last-Event-ID it misses nothing."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.server_process import Server, two_servers_on

# Liveness: the news crosses processes by NOTIFY, in well under this.
WITHIN = 5.0

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def servers(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> Iterator[tuple[Server, Server]]:
    url = new_postgres_database()
    with two_servers_on(url, tmp_path, {"SCOPA_STREAM_SECONDS": "3"}) as both:
        yield both


def register(server: Server, handle: str) -> dict[str, str]:
    answer = httpx.post(f"{server.base_url}/v1/players", json={"handle": handle}, timeout=10)
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"Bearer {answer.json()['token']['token']}"}


class Follower(threading.Thread):
    """A player's challenge stream read line by line: ``opened`` once it answered, and
    each challenge event with when it arrived."""

    def __init__(self, server: Server, headers: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.server, self.headers = server, headers
        self.opened = threading.Event()
        self.heard: list[tuple[float, int, Any]] = []

    def run(self) -> None:
        url = f"{self.server.base_url}/v1/me/challenges/stream"
        with httpx.stream("GET", url, headers=self.headers, timeout=30) as stream:
            event: dict[str, str] = {}
            for line in stream.iter_lines():
                self.opened.set()
                if line:
                    name, _, value = line.partition(": ")
                    event[name] = value
                    continue
                if event.get("event") == "challenge":
                    arrived = time.monotonic()
                    self.heard.append((arrived, int(event["id"]), json.loads(event["data"])))
                event = {}


def test_a_challenge_made_on_one_process_reaches_a_stream_on_another(
    servers: tuple[Server, Server],
) -> None:
    first, second = servers
    ada, bea = register(first, "ada"), register(second, "bea")
    follower = Follower(second, bea)
    follower.start()
    assert follower.opened.wait(WITHIN)
    made_at = time.monotonic()
    made = httpx.post(
        f"{first.base_url}/v1/challenges", json={"opponent": "bea"}, headers=ada, timeout=10
    )
    assert made.status_code == 201, made.text
    deadline = made_at + WITHIN
    while not follower.heard and time.monotonic() < deadline:
        time.sleep(0.02)
    assert follower.heard, "the challenge never reached the stream"
    arrived, number, challenge = follower.heard[0]
    assert (number, challenge["id"], challenge["status"]) == (1, made.json()["id"], "pending")
    assert arrived - made_at < WITHIN
    declined = httpx.post(
        f"{first.base_url}/v1/challenges/{challenge['id']}/decline", headers=bea, timeout=10
    )
    assert declined.status_code == 200
    follower.join(WITHIN * 2)
    # A new stream, resumed after the first news, on the other process: the rest only.
    resumed = Follower(first, {**bea, "Last-Event-ID": "1"})
    resumed.run()
    assert [(n, c["status"]) for _, n, c in resumed.heard] == [(2, "declined")]
