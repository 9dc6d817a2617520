"""HEAD on every GET route: the GET's status and headers, no body; and it never waits,
streams or computes."""

from __future__ import annotations

import time

from litestar import Litestar
from litestar.routes import HTTPRoute

from tests.api.support import Client, bearer, create, tokens
from tests.fakes import FirstMoveAi

# Headers that differ between any two answers, whatever the method.
PER_ANSWER = {"x-request-id", "date"}


def get_routes(app: Litestar) -> list[str]:
    return sorted(
        route.path_format
        for route in app.routes
        if isinstance(route, HTTPRoute) and "GET" in route.methods
    )


async def test_head_answers_every_get_route_like_get_without_a_body(
    app: Litestar, client: Client
) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    routes = get_routes(app)
    assert {"/v1/matches/{match_id}", "/v1/matches/{match_id}/hint", "/health"} <= set(routes)
    for template in routes:
        if template.endswith("/stream"):
            continue  # its GET holds the line open: below
        path = template.format(
            match_id=match_id,
            path="redoc",
            name="not-found",
            file_path="swagger-ui.css",
            handle="nobody",
            challenge_id="c_nothing",
        )
        got = await client.get(path, headers=bearer(seat[1]))
        head = await client.head(path, headers=bearer(seat[1]))
        assert head.status_code == got.status_code, path
        assert head.content == b"", path
        assert head.headers["content-type"] == got.headers["content-type"], path
        ignored = set(PER_ANSWER)
        if template == "/metrics":
            ignored.add("content-length")  # the figures move between two scrapes
        if "content-length" not in head.headers:
            assert template.endswith("/hint"), path  # its body was never made
            ignored.add("content-length")
        assert {k: v for k, v in head.headers.items() if k not in ignored} == {
            k: v for k, v in got.headers.items() if k not in ignored
        }, path
    assert 'method="HEAD",path="/v1/matches/{match_id}"' in (await client.get("/metrics")).text


async def test_head_answers_problems_like_get(client: Client) -> None:
    for path in ("/v1/matches/" + "A" * 22, "/nowhere", "/v1/matches?limit=0"):
        got, head = await client.get(path), await client.head(path)
        assert (head.status_code, head.content) == (got.status_code, b"")
        assert head.headers["content-type"] == "application/problem+json"
        assert head.headers["content-length"] == got.headers["content-length"]


async def test_head_is_allowed_where_get_is_and_only_there(client: Client) -> None:
    options = await client.options("/v1/matches/" + "A" * 22)
    assert options.headers["allow"] == "GET, HEAD, OPTIONS"
    refused = await client.post("/health")
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET, HEAD, OPTIONS"
    head = await client.head("/v1/matches/" + "A" * 22 + "/moves")
    assert head.status_code == 405
    assert head.headers["allow"] == "OPTIONS, POST"


async def test_head_on_a_long_poll_does_not_wait(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    started = time.monotonic()
    head = await client.head(f"/v1/matches/{match_id}/events", params={"after": 99, "wait": 30})
    assert time.monotonic() - started < 2
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"] == "application/json"


async def test_head_on_the_stream_does_not_stream(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    started = time.monotonic()
    head = await client.head(f"/v1/matches/{match_id}/events/stream")
    assert time.monotonic() - started < 1  # the GET would hold for stream_seconds (3 s)
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"].startswith("text/event-stream")
    assert "content-length" not in head.headers
    assert (await client.head(f"/v1/matches/{'A' * 22}/events/stream")).status_code == 404
    assert (await client.head(f"/v1/matches/{match_id}/events/stream?after=-1")).status_code == 400


async def test_head_on_a_hint_does_not_ask_the_ai(client: Client, ai: FirstMoveAi) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    before = ai.calls
    head = await client.head(f"/v1/matches/{match_id}/hint", headers=bearer(seat[1]))
    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-type"] == "application/json"
    assert ai.calls == before
    # The refusals are the GET's, all the same.
    hint = f"/v1/matches/{match_id}/hint"
    assert (await client.head(hint, headers=bearer(seat[0]))).status_code == 409
    assert (await client.head(hint + "?level=godlike", headers=bearer(seat[1]))).status_code == 400
    assert (await client.head(hint)).status_code == 401
    assert ai.calls == before
    assert (await client.get(hint, headers=bearer(seat[1]))).status_code == 200
    assert ai.calls == before + 1
