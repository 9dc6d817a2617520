"""deploy/nginx.conf run for real, in front of two server processes on Postgres, as
compose.yaml runs it (tests/support/nginx.py stands loopback addresses in for the
replicas' names): a stream's first event comes through at once; a replica killed leaves
every request to the other, streams included; neither log holds the query string, where
EventSource sends its token (nginx's error log quotes the whole request line of a request
its upstream failed). Skipped where nginx is not installed
(`apt-get install nginx-light`)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.nginx import running_nginx

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    # .ci/run installs nginx: in CI a missing one is a failure, never a skip.
    pytest.mark.skipif(
        shutil.which("nginx") is None and not os.environ.get("CI"), reason="nginx is not installed"
    ),
]

# Liveness only: an unbuffered event crosses loopback in milliseconds.
FIRST_EVENT_SECONDS = 2.0


async def first_event(client: httpx.AsyncClient, url: str) -> dict[str, Any]:
    async with client.stream("GET", url) as answer:
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        async for line in answer.aiter_lines():
            if line.startswith("data: "):
                return dict(json.loads(line.removeprefix("data: ")))
    raise AssertionError("the stream ended before its first event")


async def test_streams_failover_and_the_log_behind_nginx(serve: Any, tmp_path: Path) -> None:
    first = serve()
    second = serve(first.database_url)
    upstreams = [server.base_url.removeprefix("http://") for server in (first, second)]
    with running_nginx(tmp_path, upstreams) as (base_url, log):
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
            created = await client.post("/v1/matches", json={"seats": [{"kind": "human"}] * 2})
            assert created.status_code == 201, created.text
            match_id = created.json()["match"]["id"]
            token = created.json()["tokens"][0]["token"]

            url = f"/v1/matches/{match_id}/events/stream?token={token}"
            started = time.monotonic()
            event = await first_event(client, url)
            assert time.monotonic() - started < FIRST_EVENT_SECONDS
            assert (event["seq"], event["type"]) == (1, "deal_started")
            assert event["hand"], "the token's seat sees its own hand"

            first.kill()
            # The first request after the kill may meet the dead replica: a stream, whose
            # token nginx must not log when it goes on to the other.
            for _ in range(2):
                assert (await first_event(client, url))["seq"] == 1
            for _ in range(6):
                answer = await client.get(f"/v1/matches/{match_id}")
                assert answer.status_code == 200, answer.text
        second.stop()
    lines = log.read_text().splitlines()
    assert any(f"/v1/matches/{match_id}/events/stream " in line for line in lines), lines
    assert token not in log.read_text()
    assert not [line for line in lines if "?" in line]
