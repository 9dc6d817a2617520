"""AI seats play by themselves, promptly, off the request path; none is left stuck."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from scopa.domain.cards import parse_card
from scopa.domain.match import MatchState, Seat
from scopa.domain.moves import Move
from scopa.infra.ai_pool import PooledAi
from scopa.infra.ai_runner import AiRunner
from scopa.service.seating import Setup
from tests.api.support import DECK, Client, bearer, create, tokens
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, fake_service
from tests.support.eventually import eventually

VERSUS_AI = {
    "seats": [{"kind": "human"}, {"kind": "ai", "level": "hard"}],
    "decks": [DECK],
    "first_dealer": 0,
    "seed": 7,
}


async def until(client: Client, match_id: str, check: Any, seconds: float = 5.0) -> Any:
    """The spectator view once ``check(view)`` holds."""

    async def view() -> Any:
        body = (await client.get(f"/v1/matches/{match_id}")).json()
        return body if check(body) else None

    return await eventually(view, seconds=seconds)


async def test_the_ai_moves_first_and_answers_each_human_move(client: Client) -> None:
    created = await create(client, VERSUS_AI)
    match_id, seat = created["match"]["id"], tokens(created)
    assert created["match"]["seats"][1] == {
        "seat": 1,
        "team": 1,
        "kind": "ai",
        "level": "hard",
        "hand_count": 3,
        "name": None,
        "hand": None,
        "player": None,
    }
    body = await until(client, match_id, lambda b: b["version"] == 1)
    assert body["turn"] == 0
    mine = (await client.get(f"/v1/matches/{match_id}", headers=bearer(seat[0]))).json()
    move = mine["legal_moves"][0]
    answer = await client.post(
        f"/v1/matches/{match_id}/moves",
        json={"card": move["card"], "capture": move["capture"]},
        headers=bearer(seat[0]),
    )
    assert answer.json()["version"] == 2
    await until(client, match_id, lambda b: b["version"] == 3 and b["turn"] == 0)


async def test_an_ai_only_match_plays_itself_out(client: Client) -> None:
    created = await create(
        client, {"seats": [{"kind": "ai", "level": "easy"}] * 4, "rules": {"target": 3}}
    )
    body = await until(client, created["match"]["id"], lambda b: b["status"] == "finished", 20)
    assert body["winner"] in (0, 1)
    assert created["tokens"] == []


async def test_joining_the_last_seat_starts_the_ai(client: Client, store: FakeStore) -> None:
    created = await create(
        client, {**VERSUS_AI, "seats": [{"kind": "open"}, {"kind": "ai", "level": "easy"}]}
    )
    match_id = created["match"]["id"]
    # The AI waits for the open seat. A move not made sends no news, so wait for the AI
    # runner to claim after the match is stored (the fake's claim never pauses: one
    # counted from now on began after the create) and find no AI turn pending. Had the
    # AI been let to play, its turn would stay pending until its move was stored, and
    # the version below would be 1.
    idle = store.idle_claims
    await eventually(lambda: store.idle_claims > idle, seconds=5)
    assert (await client.get(f"/v1/matches/{match_id}")).json()["version"] == 0
    await client.post(f"/v1/matches/{match_id}/seats/0/join")
    await until(client, match_id, lambda b: b["version"] == 2 and b["turn"] == 0)


async def test_matches_left_on_an_ai_turn_are_played_at_start_up(
    store: FakeStore, bus: FakeBus
) -> None:
    # A previous process stored the match and died before the AI moved.
    before = fake_service(store, bus, ai=FirstMoveAi())
    setup = Setup(
        seats=(Seat("human"), Seat("ai", "hard")),
        decks=(tuple(parse_card(c) for c in DECK),),
        first_dealer=0,
    )
    created = await before.seating.create(setup, None, "fp")
    runner: AiRunner[str] = AiRunner(poll_seconds=60)
    service = fake_service(store, bus, ai=FirstMoveAi(), on_change=runner.kick)
    await runner.start(service.ai_work.play_ai_turn, store.claim_ai_turn)
    try:
        await eventually(lambda: store.records[created.match.id].state.version > 0, seconds=2)
    finally:
        await runner.stop()


async def test_the_sweep_retries_after_a_failure(store: FakeStore, bus: FakeBus) -> None:
    service = fake_service(store, bus, ai=FirstMoveAi())
    setup = Setup(seats=(Seat("ai", "easy"), Seat("ai", "easy")), rules={"target": 1})
    created = await service.seating.create(setup, None, "fp")
    store.down = True
    runner: AiRunner[str] = AiRunner(poll_seconds=0.05)
    await runner.start(service.ai_work.play_ai_turn, store.claim_ai_turn)
    try:
        # The outage lasts until a few sweeps have failed in it.
        await eventually(lambda: store.refused_claims >= 3, seconds=5)
        store.down = False
        await eventually(lambda: store.records[created.match.id].state.status == "finished")
    finally:
        await runner.stop()


class BrokenAi(FirstMoveAi):
    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        raise RuntimeError("the search blew up")


async def test_a_failing_ai_still_moves(
    store: FakeStore, bus: FakeBus, caplog: pytest.LogCaptureFixture
) -> None:
    service = fake_service(store, bus, ai=BrokenAi())
    setup = Setup(seats=(Seat("ai", "easy"), Seat("human")), first_dealer=1)
    created = await service.seating.create(setup, None, "fp")
    with caplog.at_level(logging.ERROR):
        await service.ai_work.advance_ai(created.match.id)
    assert store.records[created.match.id].state.version == 1
    assert "the search blew up" in caplog.text


async def test_the_real_ai_in_worker_processes(store: FakeStore, bus: FakeBus) -> None:
    ai = PooledAi(1, budget_ms=20)
    try:
        service = fake_service(store, bus, ai=ai)
        setup = Setup(
            seats=(Seat("ai", "expert"), Seat("ai", "medium")), rules={"target": 1}, seed=5
        )
        created = await service.seating.create(setup, None, "fp")
        await asyncio.wait_for(service.ai_work.advance_ai(created.match.id), 60)
        assert store.records[created.match.id].state.status == "finished"
    finally:
        await ai.close()
