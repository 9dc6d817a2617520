"""A rated match cannot be left without its result, over SQLite and Postgres: a player who
walks away from its turn loses on time, rated once, and nobody aborts a rated match once
its seats have seen their cards."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from tests.api.support import Client, bearer, problem_type
from tests.support.in_process import InProcess, serve
from tests.support.stored import Clock

# docs/api.md: SCOPA_RATED_IDLE_TTL_SECONDS, by default.
RATED_TURN = 300.0
OPEN_RATED = {"seats": [{"kind": "human"}, {"kind": "open"}], "rated": True}


async def register(client: Client, handle: str) -> str:
    answer = await client.post("/v1/players", json={"handle": handle})
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]["token"]
    return token


async def dealt(stored: InProcess) -> tuple[str, dict[str, str]]:
    """A rated match of ada and bea, from two addresses, dealt: its id and their tokens."""
    home, away = stored.client_at("10.7.0.1"), stored.client_at("10.7.0.2")
    async with home, away:
        tokens = {"ada": await register(home, "ada"), "bea": await register(away, "bea")}
        created = await home.post("/v1/matches", json=OPEN_RATED, headers=bearer(tokens["ada"]))
        match_id = created.json()["match"]["id"]
        joined = await away.post(
            f"/v1/matches/{match_id}/seats/1/join", headers=bearer(tokens["bea"])
        )
        assert joined.status_code == 200, joined.text
    return match_id, tokens


async def profile(client: Client, handle: str) -> Any:
    return (await client.get(f"/v1/players/{handle}")).json()


async def test_walking_away_from_a_rated_turn_loses_it_rated_once(database_url: str) -> None:
    clock = Clock()
    async with serve(database_url, clock=clock) as stored:
        client = stored.client
        match_id, _ = await dealt(stored)
        view = (await client.get(f"/v1/matches/{match_id}")).json()
        away = view["turn"]
        absent, present = view["seats"][away]["player"], view["seats"][1 - away]["player"]
        # No clock, yet the turn has its deadline, shown: the rated idle limit.
        assert view["rules"]["turn_seconds"] is None
        deadline = datetime.fromisoformat(view["turn_deadline"].replace("Z", "+00:00"))
        assert deadline.timestamp() == clock.now + RATED_TURN

        clock.now += RATED_TURN - 1
        await stored.service.moments.enforce(match_id)
        assert (await client.get(f"/v1/matches/{match_id}")).json()["status"] == "active"
        clock.now += 1
        # Two enforcers at once, then a late one: one finish, rated once.
        await asyncio.gather(*(stored.service.moments.enforce(match_id) for _ in range(2)))
        await stored.service.moments.enforce(match_id)
        over = (await client.get(f"/v1/matches/{match_id}")).json()
        assert (over["status"], over["end_reason"], over["winner"]) == (
            "finished",
            "timeout",
            1 - away,
        )
        events = (await client.get(f"/v1/matches/{match_id}/events")).json()["events"]
        assert [e["reason"] for e in events if e["type"] == "match_finished"] == ["timeout"]
        loser, winner = await profile(client, absent), await profile(client, present)
        assert (loser["counts"], winner["counts"]) == (
            {"played": 1, "won": 0, "lost": 1},
            {"played": 1, "won": 1, "lost": 0},
        )
        [lost], [won] = loser["ratings"], winner["ratings"]
        assert (lost["games"], won["games"]) == (1, 1)
        assert lost["rating"] < 1500 < won["rating"]


async def test_a_rated_match_is_aborted_only_before_it_is_dealt(stored: InProcess) -> None:
    client = stored.client
    match_id, tokens = await dealt(stored)
    before = (await client.get(f"/v1/matches/{match_id}")).json()
    for handle, token in tokens.items():
        refused = await client.post(f"/v1/matches/{match_id}/abort", headers=bearer(token))
        assert (refused.status_code, problem_type(refused)) == (409, "cannot-abort"), handle
        assert "rated" in refused.json()["detail"]
    after = (await client.get(f"/v1/matches/{match_id}")).json()
    assert (after["status"], after["version"]) == ("active", before["version"])
    # Waiting for its opponent, nobody has seen a card: the creator may still call it off.
    waiting = await client.post("/v1/matches", json=OPEN_RATED, headers=bearer(tokens["ada"]))
    waiting_id = waiting.json()["match"]["id"]
    aborted = await client.post(f"/v1/matches/{waiting_id}/abort", headers=bearer(tokens["ada"]))
    assert (aborted.status_code, aborted.json()["end_reason"]) == (200, "aborted")
