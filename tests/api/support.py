"""Helpers for the API tests: a fixed deal, and short ways to create, read and play."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import httpx
import pytest

from scopa.api.app import ScopaApp
from scopa.domain.cards import NAME
from scopa.infra.settings import Settings
from scopa.service.ports import EventBus
from scopa.wiring import build_app

PROBLEM = "https://scopa.example/problems/"
_FIXED = ["7C", "AC", "5S", "AD", "KH", "AH", "2C", "5H", "3D", "4S"]
# Dealer 0: seat 1 plays first holding 7C 5S KH; seat 0 holds AC AD AH; the table shows
# 2C 5H 3D 4S. So 7C has two captures (2C+5H, 3D+4S) and 5S must take 5H.
DECK = _FIXED + [c for c in NAME if c not in _FIXED]
FIXED_MATCH: dict[str, Any] = {
    "seats": [{"kind": "human"}, {"kind": "human"}],
    "decks": [DECK],
    "first_dealer": 0,
    "seed": 7,
}

Client = httpx.AsyncClient


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def create(client: Client, body: dict[str, Any] | None = None, /, **headers: str) -> Any:
    answer = await client.post("/v1/matches", json=body or FIXED_MATCH, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def event_types(events: list[Any]) -> list[str]:
    """The types of a log's events, its redeals left out: a match shuffled at random (no
    seed: a lobby's, a rematch, a rated one) may deal its first hand again before the deal
    starts (docs/rules.md, "Dealing": three or four kings on the table, about one deal in
    630)."""
    return [e["type"] for e in events if e["type"] != "redeal"]


def tokens(created: Any) -> dict[int, str]:
    return {t["seat"]: t["token"] for t in created["tokens"]}


async def view(client: Client, match_id: str, token: str | None = None) -> Any:
    answer = await client.get(f"/v1/matches/{match_id}", headers=bearer(token) if token else {})
    assert answer.status_code == 200, answer.text
    return answer.json()


def problem_type(answer: Any) -> str:
    assert answer.headers["content-type"] == "application/problem+json", answer.text
    body = answer.json()
    assert body["status"] == answer.status_code
    assert body["title"]
    assert body["detail"]
    assert body["type"].startswith(PROBLEM)
    return str(body["type"].removeprefix(PROBLEM))


async def play_out(client: Client, match_id: str, seat_tokens: dict[int, str]) -> Any:
    """Play every human seat's first legal move until the match ends or waits on no human."""
    while True:
        spectator = await view(client, match_id)
        turn = spectator["turn"]
        if spectator["status"] != "active" or turn not in seat_tokens:
            return spectator
        mine = await view(client, match_id, seat_tokens[turn])
        move = mine["legal_moves"][0]
        answer = await client.post(
            f"/v1/matches/{match_id}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=bearer(seat_tokens[turn]),
        )
        assert answer.status_code == 200, answer.text


@asynccontextmanager
async def started(app: ScopaApp) -> AsyncIterator[None]:
    """The app's start-up hooks run, then at the end its shut-down hooks, as a server runs
    them. Litestar types a hook as taking the app or nothing; build_app's take nothing."""
    for hook in app.on_startup:
        await cast(Callable[[], Awaitable[None]], hook)()
    try:
        yield
    finally:
        for hook in app.on_shutdown:
            await cast(Callable[[], Awaitable[None]], hook)()


@asynccontextmanager
async def serving(database_url: str, ai_workers: int = 0, **settings: Any) -> AsyncIterator[Client]:
    """One server process: the app as ``scopa serve`` builds it (``settings`` overriding
    the test defaults), with its start-up and shut-down hooks run."""
    defaults = Settings(
        database_url=database_url, ai_workers=ai_workers, stream_seconds=2, ai_only_move_seconds=0
    ).without_limits()
    app = build_app(dataclasses.replace(defaults, **settings))
    async with started(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client


async def finish(client: Client, match_id: str, seat_tokens: dict[int, str]) -> Any:
    """Play the human seats until the match ends, letting the AI seats take their turns."""
    for _ in range(2000):
        final = await play_out(client, match_id, seat_tokens)
        if final["status"] == "finished":
            return final
        await asyncio.sleep(0.005)
    raise AssertionError("the match never finished")


async def join(client: Client, match_id: str, seat: int, **kwargs: Any) -> Any:
    return await client.post(f"/v1/matches/{match_id}/seats/{seat}/join", **kwargs)


async def rematch(client: Client, match_id: str, token: str | None, **kwargs: Any) -> Any:
    headers = {**(bearer(token) if token else {}), **kwargs.pop("headers", {})}
    return await client.post(f"/v1/matches/{match_id}/rematch", headers=headers, **kwargs)


def waited_on(bus: EventBus | type[EventBus], monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set once a follower of a match waits on ``bus`` (an event bus, or a class of them:
    each one's waits) for news: a long poll or stream is then past its first read, so
    what lands next is news that must wake it."""
    waited = asyncio.Event()
    wait = bus.wait

    async def waiting(*args: Any) -> bool:
        waited.set()
        return await wait(*args)

    monkeypatch.setattr(bus, "wait", waiting)
    return waited
