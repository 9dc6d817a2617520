"""Moves racing over HTTP: the real server on Postgres (one process, then two sharing the
database), 50 clients on connections of their own, released together, all playing for
the seat whose turn it is.

Exactly one move may win each race; the others are refused without changing anything,
and the versions and the event log advance by exactly what the winner did.
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Server
from tests.support.server_process import FLEET

pytestmark = FLEET

CLIENTS = 50
# Eight races cross a packet boundary (three cards each for two players): the race that
# deals the next packet must be as atomic as the others.
RACES = 8
REFUSED = {409, 412, 422}


async def view(client: httpx.AsyncClient, match_id: str, token: str) -> dict[str, Any]:
    answer = await client.get(f"/v1/matches/{match_id}", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    assert answer.headers["ETag"] == f'"{answer.json()["version"]}"'
    return dict(answer.json())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def race(
    clients: list[httpx.AsyncClient], match_id: str, token: str, requests: list[dict[str, Any]]
) -> list[httpx.Response]:
    go = asyncio.Event()

    async def post(client: httpx.AsyncClient, request: dict[str, Any]) -> httpx.Response:
        await go.wait()
        return await client.post(
            f"/v1/matches/{match_id}/moves",
            headers={**bearer(token), **request["headers"]},
            json=request["body"],
        )

    tasks = [asyncio.create_task(post(c, r)) for c, r in zip(clients, requests, strict=True)]
    await asyncio.sleep(0)  # every task is at the starting line
    go.set()
    return list(await asyncio.gather(*tasks))


def contenders(position: dict[str, Any], race_number: int) -> list[dict[str, Any]]:
    """Odd races: one legal move sent 50 times, unconditionally. Even races: the legal
    moves in turn, every other one with If-Match at the current version."""
    moves = position["legal_moves"]
    assert moves
    if race_number % 2:
        body = {"card": moves[0]["card"], "capture": moves[0]["capture"]}
        return [{"headers": {}, "body": body}] * CLIENTS
    requests = []
    for i in range(CLIENTS):
        move = moves[i % len(moves)]
        headers = {"If-Match": f'"{position["version"]}"'} if i % 2 else {}
        body = {"card": move["card"], "capture": move["capture"]}
        requests.append({"headers": headers, "body": body})
    return requests


@pytest.mark.parametrize("processes", [1, 2])
async def test_fifty_racing_moves_one_wins_and_the_log_has_no_gaps(
    serve: Any, processes: int
) -> None:
    servers: list[Server] = [serve()]
    servers += [serve(servers[0].database_url) for _ in range(processes - 1)]
    limits = httpx.Limits(max_connections=1)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=servers[i % processes].base_url, timeout=30, limits=limits
                )
            )
            for i in range(CLIENTS)
        ]
        # Connected beforehand, so the race is between requests, not TCP handshakes.
        for answer in await asyncio.gather(*(c.get("/health") for c in clients)):
            assert answer.status_code == 200
        client = clients[0]

        created = await client.post(
            "/v1/matches", json={"seats": [{"kind": "human"}] * 2, "seed": 99}
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match"]["id"]
        tokens = {t["seat"]: t["token"] for t in created.json()["tokens"]}

        versions = [0]
        offered: list[tuple[int, list[dict[str, Any]]]] = []
        for number in range(1, RACES + 1):
            seat = (await view(client, match_id, tokens[0]))["turn"]
            position = await view(client, match_id, tokens[seat])
            assert position["version"] == versions[-1]
            offered.append((seat, position["legal_moves"]))
            answers = await race(clients, match_id, tokens[seat], contenders(position, number))

            codes = sorted(a.status_code for a in answers)
            won = [a for a in answers if a.status_code == 200]
            assert len(won) == 1, codes
            assert set(codes) - {200} <= REFUSED, codes
            for answer in answers:
                if answer.status_code != 200:
                    assert answer.headers["content-type"].startswith("application/problem+json")
            winner = won[0].json()
            assert winner["version"] == versions[-1] + 1
            assert won[0].headers["ETag"] == f'"{winner["version"]}"'
            assert winner["you"] == seat
            versions.append(winner["version"])
            assert (await view(client, match_id, tokens[seat]))["version"] == winner["version"]

        events = (await client.get(f"/v1/matches/{match_id}/events")).json()
    assert versions == list(range(RACES + 1))
    seqs = [event["seq"] for event in events["events"]]
    assert seqs == list(range(1, events["last_seq"] + 1))
    plays = [event for event in events["events"] if event["type"] == "card_played"]
    assert len(plays) == RACES
    for play, (seat, moves) in zip(plays, offered, strict=True):
        assert play["seat"] == seat
        assert {"card": play["card"], "capture": play["capture"], "sweep": play["sweep"]} in moves
    assert [event["type"] for event in events["events"]].count("cards_dealt") == 1
    for server in servers:
        server.assert_stops_cleanly()
