"""The game's figures at /metrics: created, finished by end_reason, moves, streams open,
and the active matches counted in the store at the scrape."""

from __future__ import annotations

import asyncio
import math

import pytest
from prometheus_client import REGISTRY

from scopa.api.metrics import GameMetrics
from scopa.service.services import Services
from tests.api.support import Client, bearer, create, play_out, tokens
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, fake_service


@pytest.fixture
def service(store: FakeStore, bus: FakeBus, ai: FirstMoveAi) -> Services:
    return fake_service(store, bus, ai=ai, observer=GameMetrics())


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


async def scrape(client: Client, name: str) -> float:
    """The figure as /metrics shows it now."""
    answer = await client.get("/metrics")
    assert answer.status_code == 200
    for line in answer.text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} is not in /metrics")


async def test_a_match_played_out_shows_in_the_figures(client: Client) -> None:
    created_before = sample("scopa_matches_created_total")
    finished_before = sample("scopa_matches_finished_total", end_reason="score")
    moves_before = sample("scopa_moves_played_total", player="human")
    created = await create(client)
    assert sample("scopa_matches_created_total") == created_before + 1
    assert await scrape(client, "scopa_matches_active") == 1
    await create(client)
    assert await scrape(client, "scopa_matches_active") == 2
    await play_out(client, created["match"]["id"], tokens(created))
    assert sample("scopa_matches_finished_total", end_reason="score") == finished_before + 1
    assert sample("scopa_moves_played_total", player="human") >= moves_before + 36
    assert await scrape(client, "scopa_matches_active") == 1
    text = (await client.get("/metrics")).text
    assert 'scopa_matches_finished_total{end_reason="score"}' in text
    assert 'scopa_moves_played_total{player="ai"}' in text


async def test_ai_moves_are_counted_apart(client: Client) -> None:
    before = sample("scopa_moves_played_total", player="ai")
    body = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}], "first_dealer": 0}
    created = await create(client, body)
    match_id = created["match"]["id"]
    for _ in range(50):  # the AI seat plays first, at once, in the background
        if sample("scopa_moves_played_total", player="ai") > before:
            break
        await asyncio.sleep(0.02)
    assert sample("scopa_moves_played_total", player="ai") == before + 1
    answer = await client.get(f"/v1/matches/{match_id}", headers=bearer(tokens(created)[0]))
    assert answer.json()["turn"] == 0


async def test_a_stream_counts_while_it_is_open(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    before = sample("scopa_streams_open")
    following = asyncio.create_task(client.get(f"/v1/matches/{match_id}/events/stream"))
    for _ in range(100):
        if sample("scopa_streams_open") > before:
            break
        await asyncio.sleep(0.02)
    assert sample("scopa_streams_open") == before + 1
    assert await scrape(client, "scopa_streams_open") == before + 1
    # A HEAD of the stream is no stream.
    assert (await client.head(f"/v1/matches/{match_id}/events/stream")).status_code == 200
    assert sample("scopa_streams_open") == before + 1
    assert (await following).status_code == 200  # its stream_seconds (3 s) are up
    assert sample("scopa_streams_open") == before


async def test_while_the_store_is_down_the_active_figure_is_unknown(
    client: Client, store: FakeStore
) -> None:
    await create(client)
    store.down = True
    assert math.isnan(await scrape(client, "scopa_matches_active"))
    store.down = False
    assert await scrape(client, "scopa_matches_active") == 1
