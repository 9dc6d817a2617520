"""The event feed under the client: streams that drop every second resume from the last
seq with nothing missed or doubled, and a browser without EventSource long-polls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.browser.web_client import WebClient
from tests.support.server_process import Server, start_server

pytestmark = pytest.mark.browser

MOVES = 8


@pytest.fixture
def dropping_server(tmp_path: Path) -> Iterator[Server]:
    """A server that ends every event stream after one second, as a proxy or a flaky
    network would: the browser reconnects with Last-Event-ID each time."""
    server = start_server(
        f"sqlite+aiosqlite:///{tmp_path / 'scopa.db'}", tmp_path, {"SCOPA_STREAM_SECONDS": "1"}
    )
    try:
        yield server
    finally:
        server.stop()


def play_and_compare(client: WebClient) -> None:
    for _ in range(MOVES):
        assert client.state() == "turn"
        client.play_one()
    assert client.state() == "turn"
    logged = client.logged_plays()
    plays = [e["seq"] for e in client.events(0) if e["type"] == "card_played"]
    # Every play from the first one the page saw, once each and in order.
    assert len(logged) >= 2 * MOVES - 1
    assert logged == [seq for seq in plays if seq >= logged[0]]
    assert client.hand() == client.view(0)["hand"]


def test_dropped_streams_resume_with_nothing_missed_or_doubled(
    open_page: Callable[..., WebClient], dropping_server: Server
) -> None:
    client = open_page(on=dropping_server)
    client.start("ai", level="easy", pace="normal")
    play_and_compare(client)
    log = dropping_server.log_text()
    assert log.count("/events/stream") >= 3, "the streams did not drop and resume"


def test_without_event_source_the_client_long_polls(
    open_page: Callable[..., WebClient], server: Server
) -> None:
    client = open_page(init_script="delete window.EventSource;")
    match_id = client.start("ai", level="easy")
    play_and_compare(client)
    log = server.log_text()
    assert f"/v1/matches/{match_id}/events/stream" not in log
    assert f"/v1/matches/{match_id}/events" in log
