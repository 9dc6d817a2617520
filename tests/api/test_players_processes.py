"""Players across server processes on one database (SQLite, then Postgres): a revoked
token is refused by every process at once, a rated match is rated once however many
processes finish it, and no token or token hash shows in a view, a log or the metrics."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest

from tests.api.support import bearer
from tests.support.in_process import InProcess, serve


@pytest.fixture
async def two(database_url: str) -> AsyncIterator[tuple[InProcess, InProcess]]:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(serve(database_url))
        second = await stack.enter_async_context(serve(database_url))
        yield first, second


async def test_a_revoked_token_is_refused_by_every_process_at_once(
    two: tuple[InProcess, InProcess],
) -> None:
    one, other = two[0].client, two[1].client
    registered = (await one.post("/v1/players", json={"handle": "ada"})).json()
    token = registered["token"]["token"]
    spare = (await one.post("/v1/me/tokens", headers=bearer(token))).json()["token"]
    assert (await other.get("/v1/me", headers=bearer(token))).status_code == 200
    revoked = await one.delete(f"/v1/me/tokens/{registered['token']['id']}", headers=bearer(spare))
    assert revoked.status_code == 204
    for client in (other, one):
        assert (await client.get("/v1/me", headers=bearer(token))).status_code == 401
        assert (await client.get("/v1/me", headers=bearer(spare))).status_code == 200


async def test_a_rated_match_finished_by_two_processes_at_once_is_rated_once(
    two: tuple[InProcess, InProcess],
) -> None:
    one, other = two[0].client_at("10.0.0.1"), two[1].client_at("10.0.0.2")
    async with one, other:
        ada = (await one.post("/v1/players", json={"handle": "ada"})).json()["token"]["token"]
        bea = (await other.post("/v1/players", json={"handle": "bea"})).json()["token"]["token"]
        body = {"seats": [{"kind": "human"}, {"kind": "open"}], "rated": True}
        created = await one.post("/v1/matches", json=body, headers=bearer(ada))
        match_id = created.json()["match"]["id"]
        joined = await other.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(bea))
        assert joined.status_code == 200
        # Both seats resign at the same moment, each through its own process.
        answers = await asyncio.gather(
            one.post(f"/v1/matches/{match_id}/resign", headers=bearer(ada)),
            other.post(f"/v1/matches/{match_id}/resign", headers=bearer(bea)),
        )
        assert sorted(a.status_code for a in answers) == [200, 409]
        profiles = [(await one.get(f"/v1/players/{h}")).json() for h in ("ada", "bea")]
    assert [p["ratings"][0]["games"] for p in profiles] == [1, 1]
    assert sorted(p["counts"]["won"] for p in profiles) == [0, 1]


async def test_no_token_or_its_hash_shows_in_views_logs_or_metrics(
    two: tuple[InProcess, InProcess], caplog: pytest.LogCaptureFixture
) -> None:
    client = two[0].client
    # The server's own logs at every level, the libraries' at the server's default (a
    # database driver's debug log shows statements' parameters: hashes among them).
    with caplog.at_level(logging.INFO), caplog.at_level(logging.DEBUG, logger="scopa"):
        registered = await client.post("/v1/players", json={"handle": "ada"})
        token = registered.json()["token"]["token"]
        shown = [
            await client.get("/v1/me", headers=bearer(token)),
            await client.get("/v1/players/ada"),
            await client.post(
                "/v1/matches",
                json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}]},
                headers=bearer(token),
            ),
            await client.get("/v1/me/matches", headers=bearer(token)),
            await client.get("/v1/leaderboard", params={"format": "2p-11"}),
            await client.get("/v1/me", headers=bearer(token[:-1] + "A")),  # refused
            await client.get("/metrics"),
        ]
    hashed = hashlib.sha256(token.encode()).hexdigest()
    texts = [answer.text for answer in shown] + [caplog.text]
    for text in texts:
        assert token not in text
        assert token[4:] not in text
        assert hashed not in text
    assert "/v1/me" in caplog.text  # the requests were logged
