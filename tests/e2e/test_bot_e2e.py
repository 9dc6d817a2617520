"""Whole matches over the wire: the real server process on Postgres, one example bot
(examples/bot.py) per seat, each with the token its seat was given, until the end.

Then the finished match must add up: the scores are the deal totals, every deal accounts
for the 40 cards, the event log has no gaps and tells the same story as the view.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from examples.bot import connect, play_seat
from tests.e2e.conftest import Server

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# Liveness only: a match of greedy bots takes seconds; a stuck one would take forever.
MATCH_SECONDS = 120.0
CARDS = 40
# The first deal puts 4 cards on the table; every other card of a deal is played.
PLAYS_PER_DEAL = CARDS - 4


async def create(
    client: httpx.AsyncClient, kinds: list[str], seed: int
) -> tuple[str, dict[int, str]]:
    answer = await client.post(
        "/v1/matches", json={"seats": [{"kind": kind} for kind in kinds], "seed": seed}
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert answer.headers["Location"].endswith(body["match"]["id"])
    tokens: dict[int, str] = {entry["seat"]: entry["token"] for entry in body["tokens"]}
    assert sorted(tokens) == [seat for seat, kind in enumerate(kinds) if kind == "human"]
    return body["match"]["id"], tokens


async def join(client: httpx.AsyncClient, match_id: str, seat: int) -> str:
    answer = await client.post(f"/v1/matches/{match_id}/seats/{seat}/join")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["seat"] == seat
    return str(body["token"])


async def all_events(client: httpx.AsyncClient, match_id: str) -> list[dict[str, Any]]:
    """Every event, page by page (at most 500 an answer), as a spectator sees them."""
    events: list[dict[str, Any]] = []
    while True:
        answer = await client.get(f"/v1/matches/{match_id}/events", params={"after": len(events)})
        assert answer.status_code == 200, answer.text
        page = answer.json()
        events += page["events"]
        if not page["events"] or events[-1]["seq"] >= page["last_seq"]:
            assert [e["seq"] for e in events] == list(range(1, page["last_seq"] + 1))
            return events


async def play_to_the_end(
    client: httpx.AsyncClient, match_id: str, tokens: dict[int, str]
) -> list[dict[str, Any]]:
    async with asyncio.timeout(MATCH_SECONDS):
        finals = await asyncio.gather(
            *(play_seat(client, match_id, token) for token in tokens.values())
        )
    return list(finals)


def check_finished(
    finals: list[dict[str, Any]], events: list[dict[str, Any]], seats: list[int]
) -> None:
    assert [view["you"] for view in finals] == seats
    last = finals[0]
    for view in finals:
        assert view["status"] == "finished"
        assert (view["version"], view["scores"], view["winner"]) == (
            last["version"],
            last["scores"],
            last["winner"],
        )
        assert view["hand"] == []
        assert view["legal_moves"] == []
        assert view["turn"] is None
        assert view["table"] == []
        assert view["deck_count"] == 0

    scores, winner, deal_scores = last["scores"], last["winner"], last["deal_scores"]
    assert winner in (0, 1)
    assert scores[winner] >= last["rules"]["target"]
    assert scores[winner] > scores[1 - winner]
    totals = [sum(d["teams"][team]["total"] for d in deal_scores) for team in (0, 1)]
    assert totals == scores
    assert deal_scores[-1]["scores"] == scores
    assert [d["deal"] for d in deal_scores] == list(range(1, len(deal_scores) + 1))

    # The log retold: one deal_scored per DealScore, 36 plays per deal, leftovers nobody
    # took the only cards missing from the teams' counts, match_finished last.
    scored: list[dict[str, Any]] = []
    plays = joins = plays_this_deal = nobodys = 0
    for event in events:
        kind = event["type"]
        if kind == "card_played":
            plays += 1
            plays_this_deal += 1
        elif kind == "seat_joined":
            joins += 1
        elif kind == "leftovers_taken" and event["team"] is None:
            nobodys += len(event["cards"])
        elif kind == "deal_scored":
            assert plays_this_deal == PLAYS_PER_DEAL, event
            cards = sum(team["cards"] for team in event["teams"])
            assert cards + nobodys == CARDS, event
            assert cards == CARDS or nobodys > 0
            scored.append({k: v for k, v in event.items() if k not in ("seq", "type")})
            plays_this_deal = nobodys = 0
    assert scored == deal_scores
    assert events[-1]["type"] == "match_finished"
    assert (events[-1]["winner"], events[-1]["scores"]) == (winner, scores)
    # Each accepted change (a move, a join) is one version.
    assert last["version"] == plays + joins

    # The final view keeps the last deal's piles, leftovers included.
    piles = [card for team in last["teams"] for card in team["captured"]]
    assert len(piles) == len(set(piles))
    assert [team["captured_count"] for team in last["teams"]] == [
        team["cards"] for team in deal_scores[-1]["teams"]
    ]


@pytest.mark.parametrize(
    ("kinds", "seed"),
    [
        pytest.param(["human"] * 2, 11, id="two-players"),
        pytest.param(["human"] * 4, 12, id="four-players"),
    ],
)
async def test_bots_play_a_match_to_the_end(serve: Any, kinds: list[str], seed: int) -> None:
    server: Server = serve()
    async with connect(server.base_url) as client:
        match_id, tokens = await create(client, kinds, seed)
        finals = await play_to_the_end(client, match_id, tokens)
        events = await all_events(client, match_id)
    check_finished(finals, events, seats=list(range(len(kinds))))
    server.assert_stops_cleanly()
    log = server.log_text()
    assert all(token not in log for token in tokens.values())


async def test_open_seats_joined_then_played_to_the_end(serve: Any) -> None:
    server: Server = serve()
    async with connect(server.base_url) as client:
        match_id, tokens = await create(client, ["human", "open", "human", "open"], 13)
        # The holders wait for the match to start, as a bot does that creates and waits.
        waiting = [
            asyncio.create_task(play_seat(client, match_id, tokens[seat])) for seat in (0, 2)
        ]
        view = (await client.get(f"/v1/matches/{match_id}")).json()
        assert (view["status"], view["version"], view["deal"]) == ("waiting", 0, 0)

        try:
            tokens[1] = await join(client, match_id, 1)
            view = (await client.get(f"/v1/matches/{match_id}")).json()
            assert (view["status"], view["version"]) == ("waiting", 1)
            again = await client.post(f"/v1/matches/{match_id}/seats/1/join")
            assert again.status_code == 409, again.text

            tokens[3] = await join(client, match_id, 3)
            joined = [
                asyncio.create_task(play_seat(client, match_id, tokens[seat])) for seat in (1, 3)
            ]
            async with asyncio.timeout(MATCH_SECONDS):
                finals = await asyncio.gather(*waiting, *joined)
        finally:
            for task in waiting:
                task.cancel()
        events = await all_events(client, match_id)
    assert [view["kind"] for view in finals[0]["seats"]] == ["human"] * 4
    assert [e["seat"] for e in events if e["type"] == "seat_joined"] == [1, 3]
    check_finished(finals, events, seats=[0, 2, 1, 3])
    server.assert_stops_cleanly()
