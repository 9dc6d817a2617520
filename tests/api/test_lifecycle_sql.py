"""The moments of a match enforced by the app as ``scopa serve`` builds it (its deadline
runner on a real clock), over SQLite and Postgres: expiry, abandonment, turn clocks."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import pytest

from tests.api.support import FIXED_MATCH, Client, bearer, create, problem_type, serving, tokens

# docs/api.md: within 2 s of the moment; a little more for a loaded test machine's clock reads.
SLACK = 2.0

pytestmark = pytest.mark.timeout(60)


async def until(client: Client, match_id: str, done: Any, seconds: float) -> dict[str, Any]:
    """The spectator view, read until ``done(view)`` or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        view = (await client.get(f"/v1/matches/{match_id}")).json()
        if done(view) or time.monotonic() > deadline:
            return dict(view)
        await asyncio.sleep(0.05)


async def events(client: Client, match_id: str) -> list[dict[str, Any]]:
    return list((await client.get(f"/v1/matches/{match_id}/events")).json()["events"])


def moment(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def test_waiting_matches_expire_and_idle_ones_are_abandoned(database_url: str) -> None:
    async with serving(database_url, waiting_ttl_seconds=1, idle_ttl_seconds=2) as client:
        started = time.time()
        waiting = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
        idle = await create(client)
        waiting_id, idle_id = waiting["match"]["id"], idle["match"]["id"]
        lobby = (await client.get("/v1/matches")).json()["matches"]
        assert [m["id"] for m in lobby] == [waiting_id]

        expired = await until(client, waiting_id, lambda v: v["status"] == "finished", 1 + SLACK)
        assert (expired["end_reason"], expired["winner"], expired["version"]) == (
            "expired",
            None,
            1,
        )
        assert time.time() - started <= 1 + SLACK
        assert (await client.get("/v1/matches")).json()["matches"] == []
        joined = await client.post(f"/v1/matches/{waiting_id}/seats/1/join")
        assert (joined.status_code, problem_type(joined)) == (409, "seat-not-open")

        abandoned = await until(client, idle_id, lambda v: v["status"] == "finished", 2 + SLACK)
        assert (abandoned["end_reason"], abandoned["winner"]) == ("abandoned", None)
        assert time.time() - started <= 2 + SLACK
        for match_id, reason in ((waiting_id, "expired"), (idle_id, "abandoned")):
            finished = [e for e in await events(client, match_id) if e["type"] == "match_finished"]
            assert [e["reason"] for e in finished] == [reason]


async def test_turn_clocks_forfeit_and_autoplay_on_time(database_url: str) -> None:
    async with serving(database_url) as client:
        forfeit = await create(
            client, {**FIXED_MATCH, "rules": {"turn_seconds": 5, "on_timeout": "forfeit"}}
        )
        autoplay = await create(client, {**FIXED_MATCH, "rules": {"turn_seconds": 5}})
        forfeit_id, autoplay_id = forfeit["match"]["id"], autoplay["match"]["id"]
        deadline = moment(autoplay["match"]["turn_deadline"])
        assert 4 <= deadline - time.time() <= 5

        lost = await until(client, forfeit_id, lambda v: v["status"] == "finished", 5 + SLACK)
        assert (lost["end_reason"], lost["winner"]) == ("timeout", 0)  # seat 1 was to play
        assert time.time() <= moment(forfeit["match"]["turn_deadline"]) + SLACK

        moved = await until(client, autoplay_id, lambda v: v["version"] >= 1, SLACK)
        assert time.time() <= deadline + SLACK
        assert (moved["status"], moved["turn"], moved["version"]) == ("active", 0, 1)
        (played,) = [e for e in await events(client, autoplay_id) if e["type"] == "card_played"]
        assert (played["seat"], played["auto"]) == (1, True)
        # A full clock for seat 0, from the autoplay.
        assert moment(moved["turn_deadline"]) - deadline >= 5

        # Seat 0 plays itself: no auto, and seat 1's clock starts again.
        seat = tokens(autoplay)
        mine = (await client.get(f"/v1/matches/{autoplay_id}", headers=bearer(seat[0]))).json()
        move = mine["legal_moves"][0]
        answer = await client.post(
            f"/v1/matches/{autoplay_id}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=bearer(seat[0]),
        )
        assert answer.status_code == 200
        assert answer.json()["turn_deadline"] is not None
        last = (await events(client, autoplay_id))[-1]
        assert (last["type"], last["seat"], last["auto"]) == ("card_played", 0, False)


async def test_a_rated_turn_left_past_its_limit_is_lost_on_time(database_url: str) -> None:
    async with serving(database_url, rated_idle_ttl_seconds=1) as client:
        registered = await client.post("/v1/players", json={"handle": "leaver"})
        token = registered.json()["token"]["token"]
        body = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}], "rated": True}
        created = await client.post("/v1/matches", json=body, headers=bearer(token))
        match_id = created.json()["match"]["id"]
        # Whoever leads, the AI plays at once and the player's turn comes: then 1 s.
        lost = await until(client, match_id, lambda v: v["status"] == "finished", 1 + 2 * SLACK)
        assert (lost["end_reason"], lost["winner"]) == ("timeout", 1)
        page = (await client.get("/v1/players/leaver")).json()
        assert page["counts"] == {"played": 1, "won": 0, "lost": 1}
        assert [r["games"] for r in page["ratings"]] == [1]
