"""What reading a match also tells: last_seq,
If-None-Match and the caching headers, the lobby of active matches, and the training
option that shows the AI's cards."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scopa.domain.cards import NAME
from tests.api.support import (
    FIXED_MATCH,
    Client,
    bearer,
    create,
    finish,
    problem_type,
    tokens,
    view,
)
from tests.support.databases import sqlite_only
from tests.support.in_process import InProcess

database_url = sqlite_only()


HUMAN = {"kind": "human"}
OPEN = {"kind": "open"}
CACHING = {"cache-control": "private, no-cache", "vary": "Authorization"}


async def test_last_seq_follows_the_log(stored: InProcess) -> None:
    client = stored.client
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    assert created["match"]["last_seq"] == 1  # deal_started
    moved = await client.post(
        f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1])
    )
    assert moved.json()["last_seq"] == 2
    events = (await client.get(f"/v1/matches/{match_id}/events")).json()
    assert (await view(client, match_id))["last_seq"] == events["last_seq"] == 2
    waiting = await create(client, {"seats": [HUMAN, OPEN]})
    assert waiting["match"]["last_seq"] == 0


async def test_if_none_match_naming_the_version_is_304(stored: InProcess) -> None:
    client = stored.client
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    url = f"/v1/matches/{match_id}"
    for header in ('"0"', 'W/"0"', '"7", "0"', ' W/"3" ,W/"0" ', '"0",', ', ,"0"', "*"):
        for auth in ({}, bearer(seat[0])):
            answer = await client.get(url, headers={**auth, "If-None-Match": header})
            assert answer.status_code == 304, (header, answer.text)
            assert answer.content == b""
            assert answer.headers["etag"] == '"0"'
            assert {k: answer.headers[k] for k in CACHING} == CACHING
    # An empty list (RFC 9110 lists may hold empty elements) names no version.
    for header in ('"1"', 'W/"10"', '"00"', "", ",", " , "):
        answer = await client.get(url, headers={"If-None-Match": header})
        # "00" names version 0 too: the digits are a number, as in If-Match.
        assert answer.status_code == (304 if header == '"00"' else 200), header
    await client.post(f"{url}/moves", json={"card": "5S"}, headers=bearer(seat[1]))
    answer = await client.get(url, headers={"If-None-Match": '"0"'})
    assert (answer.status_code, answer.headers["etag"], answer.json()["version"]) == (200, '"1"', 1)


@pytest.mark.parametrize(
    "header", ["0", '"zero"', "W/0", '"0" "1"', '*, "0"', "**", '"' + "9" * 19 + '"']
)
async def test_a_malformed_if_none_match_is_400(stored: InProcess, header: str) -> None:
    match_id = (await create(stored.client))["match"]["id"]
    answer = await stored.client.get(f"/v1/matches/{match_id}", headers={"If-None-Match": header})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "If-None-Match"


async def test_404_and_401_come_before_if_none_match(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    unknown = await client.get("/v1/matches/" + "A" * 22, headers={"If-None-Match": "bad"})
    assert unknown.status_code == 404
    forged = await client.get(
        f"/v1/matches/{match_id}", headers={"If-None-Match": '"0"', **bearer("forged")}
    )
    assert (forged.status_code, problem_type(forged)) == (401, "invalid-token")


async def test_match_views_are_private_and_vary_on_the_token(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    read = await client.get(f"/v1/matches/{match_id}")
    moved = await client.post(
        f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1])
    )
    for answer in (read, moved):
        assert {k: answer.headers[k] for k in CACHING} == CACHING


async def test_the_active_lobby_lists_matches_being_played_newest_first(
    stored: InProcess,
) -> None:
    client = stored.client
    made = []
    for _ in range(5):
        made.append((await create(client))["match"]["id"])
        await asyncio.sleep(0.002)  # distinct creation times
    await create(client, {"seats": [HUMAN, OPEN]})  # waiting: not listed
    done = await create(client, {**FIXED_MATCH, "rules": {"target": 1}})
    await finish(client, done["match"]["id"], tokens(done))  # finished: not listed
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"status": "active", "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = (await client.get("/v1/matches", params=params)).json()
        assert all(m["status"] == "active" and m["hand"] is None for m in page["matches"])
        seen += [m["id"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == made[::-1]


async def truth(stored: InProcess, match_id: str) -> Any:
    record = await stored.matches.get(match_id)
    assert record is not None
    return record.state


@pytest.mark.parametrize("reveal", [True, False])
async def test_reveal_ai_hands_shows_exactly_the_ai_hands(stored: InProcess, reveal: bool) -> None:
    client = stored.client
    body = {
        "seats": [HUMAN, {"kind": "ai", "level": "easy"}, OPEN, {"kind": "ai", "level": "hard"}],
        "rules": {"target": 1, "reveal_ai_hands": reveal},
    }
    created = await create(client, body)
    match_id, seat = created["match"]["id"], tokens(created)
    assert created["match"]["rules"]["reveal_ai_hands"] is reveal
    assert [s["hand"] for s in created["match"]["seats"]] == [None] * 4  # waiting
    seat[2] = (await client.post(f"/v1/matches/{match_id}/seats/2/join")).json()["token"]
    checked = 0
    while True:
        state = await truth(stored, match_id)
        if state.status != "active":
            break
        if state.turn not in seat:
            await asyncio.sleep(0.005)
            continue
        for token in (None, seat[0], seat[2]):
            shown = [s["hand"] for s in (await view(client, match_id, token))["seats"]]
            if reveal:
                expected = [None, [NAME[c] for c in state.hands[1]], None,
                            [NAME[c] for c in state.hands[3]]]  # fmt: skip
            else:
                expected = [None] * 4
            assert shown == expected
            checked += 1
        mine = await view(client, match_id, seat[state.turn])
        move = mine["legal_moves"][0]
        await client.post(
            f"/v1/matches/{match_id}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=bearer(seat[state.turn]),
        )
    assert checked >= 6
    final = await view(client, match_id)
    hands: list[list[str] | None] = [None, [], None, []] if reveal else [None] * 4
    assert [s["hand"] for s in final["seats"]] == hands
