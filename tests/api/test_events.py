"""Events: long-poll and Server-Sent Events, resumable, filtered per viewer."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from scopa.infra.settings import Settings
from tests.api.support import Client, bearer, create, play_out, problem_type, tokens, waited_on
from tests.fakes import FakeBus, FakeStore

SHORT = {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"target": 1}, "seed": 3}


@pytest.fixture
def settings() -> Settings:
    return Settings(stream_seconds=1.0).without_limits()


async def events(client: Client, match_id: str, **kwargs: Any) -> Any:
    answer = await client.get(f"/v1/matches/{match_id}/events", **kwargs)
    assert answer.status_code == 200, answer.text
    return answer.json()


def parse_sse(text: str) -> list[dict[str, str]]:
    messages = []
    for block in text.split("\r\n\r\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            if name in ("id", "event", "data"):
                fields[name] = value
        if "id" in fields:
            messages.append(fields)
    return messages


async def test_events_are_numbered_and_filtered_per_viewer(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    spectator = await events(client, match_id)
    assert spectator["last_seq"] == 1
    (dealt,) = spectator["events"]
    assert dealt == {
        "seq": 1,
        "type": "deal_started",
        "deal": 1,
        "dealer": 0,
        "table": ["2C", "5H", "3D", "4S"],
        "hand": None,
        "hands": None,
    }
    mine = await events(client, match_id, headers=bearer(seat[1]))
    assert mine["events"][0]["hand"] == ["7C", "5S", "KH"]
    by_query = await events(client, match_id, params={"token": seat[0]})
    assert by_query["events"][0]["hand"] == ["AC", "AD", "AH"]
    # The header wins over the query.
    both = await events(client, match_id, params={"token": seat[0]}, headers=bearer(seat[1]))
    assert both["events"][0]["hand"] == ["7C", "5S", "KH"]


async def test_after_skips_seen_events_and_the_log_has_no_gaps(client: Client) -> None:
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    await play_out(client, match_id, tokens(created))
    every = await events(client, match_id)
    seqs = [e["seq"] for e in every["events"]]
    assert seqs == list(range(1, every["last_seq"] + 1))
    assert every["events"][-1]["type"] == "match_finished"
    tail = await events(client, match_id, params={"after": every["last_seq"] - 2})
    assert [e["seq"] for e in tail["events"]] == seqs[-2:]
    assert (await events(client, match_id, params={"after": 10_000}))["events"] == []


@pytest.mark.parametrize(
    "params", [{"wait": 31}, {"wait": -1}, {"wait": "x"}, {"after": -1}, {"after": "1.5"}]
)
async def test_bad_parameters_are_400(client: Client, params: dict[str, Any]) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(f"/v1/matches/{match_id}/events", params=params)
    assert answer.status_code == 400
    assert problem_type(answer) == "validation-error"


async def test_events_answer_401_and_404(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    for route in ("events", "events/stream"):
        answer = await client.get(f"/v1/matches/{match_id}/{route}", params={"token": "forged"})
        assert answer.status_code == 401
        answer = await client.get(f"/v1/matches/{'A' * 22}/{route}")
        assert answer.status_code == 404


async def test_long_poll_returns_when_a_move_lands(
    client: Client, bus: FakeBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    waiting = waited_on(bus, monkeypatch)

    async def later() -> None:
        await asyncio.wait_for(waiting.wait(), 5)
        played = await client.post(
            f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1])
        )
        assert played.status_code == 200

    started = time.monotonic()
    page, _ = await asyncio.gather(
        events(client, match_id, params={"after": 1, "wait": 10}, headers=bearer(seat[0])),
        later(),
    )
    assert time.monotonic() - started < 5
    assert [e["type"] for e in page["events"]] == ["card_played"]
    assert page["events"][0]["card"] == "5S"
    assert page["last_seq"] == 2


async def test_long_poll_times_out_empty(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    started = time.monotonic()
    page = await events(client, match_id, params={"after": 1, "wait": 0.5})
    assert 0.4 <= time.monotonic() - started < 5
    assert page == {"events": [], "last_seq": 1}


async def test_one_answer_holds_at_most_500_events(client: Client) -> None:
    created = await create(
        client,
        {"seats": [{"kind": "ai", "level": "easy"}] * 2, "rules": {"target": 100}, "seed": 1},
    )
    match_id = created["match"]["id"]
    deadline = time.monotonic() + 30
    while (await client.get(f"/v1/matches/{match_id}")).json()["status"] != "finished":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    first = await events(client, match_id)
    assert len(first["events"]) == 500
    last_seq = first["last_seq"]
    assert last_seq > 500
    seqs = [e["seq"] for e in first["events"]]
    while seqs[-1] < last_seq:
        page = await events(client, match_id, params={"after": seqs[-1]})
        assert 0 < len(page["events"]) <= 500
        seqs += [e["seq"] for e in page["events"]]
    assert seqs == list(range(1, last_seq + 1))


async def test_stream_sends_id_event_and_data_and_ends_with_the_match(client: Client) -> None:
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    await play_out(client, match_id, tokens(created))
    log = (await events(client, match_id))["events"]
    answer = await client.get(f"/v1/matches/{match_id}/events/stream")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    messages = parse_sse(answer.text)
    assert [int(m["id"]) for m in messages] == [e["seq"] for e in log]
    assert [m["event"] for m in messages] == [e["type"] for e in log]
    assert [json.loads(m["data"]) for m in messages] == log


async def test_stream_resumes_from_last_event_id_which_wins_over_after(client: Client) -> None:
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    await play_out(client, match_id, tokens(created))
    last = (await events(client, match_id))["last_seq"]
    answer = await client.get(
        f"/v1/matches/{match_id}/events/stream",
        params={"after": 1},
        headers={"Last-Event-ID": str(last - 3)},
    )
    assert [int(m["id"]) for m in parse_sse(answer.text)] == [last - 2, last - 1, last]
    answer = await client.get(f"/v1/matches/{match_id}/events/stream", params={"after": last - 1})
    assert [int(m["id"]) for m in parse_sse(answer.text)] == [last]
    answer = await client.get(
        f"/v1/matches/{match_id}/events/stream", headers={"Last-Event-ID": "x"}
    )
    assert answer.status_code == 400


async def test_stream_delivers_live_events_to_the_seat(
    client: Client, bus: FakeBus, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    waiting = waited_on(bus, monkeypatch)

    async def later() -> None:
        await asyncio.wait_for(waiting.wait(), 5)
        await client.post(
            f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1])
        )

    answer, _ = await asyncio.gather(
        client.get(f"/v1/matches/{match_id}/events/stream", params={"token": seat[0]}), later()
    )
    messages = parse_sse(answer.text)
    assert [m["event"] for m in messages] == ["deal_started", "card_played"]
    assert '"hand":["AC","AD","AH"]' in messages[0]["data"]


async def test_a_stream_that_loses_the_database_ends_cleanly(
    client: Client,
    store: FakeStore,
    bus: FakeBus,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    created = await create(client)
    match_id = created["match"]["id"]
    waiting = waited_on(bus, monkeypatch)

    async def outage() -> None:
        await asyncio.wait_for(waiting.wait(), 5)
        store.down = True
        # News, which the stream's watcher goes to read from a store that is down.
        await bus.publish(match_id, 99)

    answer, _ = await asyncio.gather(client.get(f"/v1/matches/{match_id}/events/stream"), outage())
    assert answer.status_code == 200
    assert [m["event"] for m in parse_sse(answer.text)] == ["deal_started"]
    assert "broke off" in caplog.text


async def test_a_finished_match_with_nothing_new_answers_204(client: Client) -> None:
    # An EventSource stops reconnecting on 204, rather than every 2 s for ever.
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    await play_out(client, match_id, tokens(created))
    last = (await events(client, match_id))["last_seq"]
    stream = f"/v1/matches/{match_id}/events/stream"
    assert (await client.get(stream, headers={"Last-Event-ID": str(last)})).status_code == 204
    assert (await client.get(stream, params={"after": last + 5})).status_code == 204
    behind = await client.get(stream, headers={"Last-Event-ID": str(last - 1)})
    assert behind.status_code == 200
    assert [int(m["id"]) for m in parse_sse(behind.text)] == [last]


async def test_a_stream_reconnecting_during_an_outage_hears_when_to_come_back(
    client: Client, store: FakeStore
) -> None:
    # A 503 would make an EventSource give up for good: a 200 with retry: brings it back.
    created = await create(client)
    match_id = created["match"]["id"]
    store.down = True
    answer = await client.get(f"/v1/matches/{match_id}/events/stream")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text == "retry: 2000\n\n"
    store.down = False
    again = await client.get(f"/v1/matches/{match_id}/events/stream")
    assert [m["event"] for m in parse_sse(again.text)] == ["deal_started"]


async def test_the_challenge_stream_reconnecting_during_an_outage_hears_when_to_come_back(
    client: Client, store: FakeStore
) -> None:
    registered = await client.post("/v1/players", json={"handle": "outage_ears"})
    token = registered.json()["token"]["token"]
    store.down = True
    answer = await client.get("/v1/me/challenges/stream", headers=bearer(token))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text == "retry: 2000\n\n"
