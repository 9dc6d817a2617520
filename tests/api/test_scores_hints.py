"""Scores with the live tally, and hints from the AI for the caller's seat."""

from __future__ import annotations

import pytest

from scopa.domain.ai import LEVELS
from scopa.infra.ai_pool import PooledAi
from scopa.service.services import Services
from tests.api.support import Client, bearer, create, play_out, problem_type, tokens

SHORT = {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"target": 1}, "seed": 3}


async def scores(client: Client, match_id: str) -> dict[str, object]:
    answer = await client.get(f"/v1/matches/{match_id}/scores")
    assert answer.status_code == 200, answer.text
    body: dict[str, object] = answer.json()
    return body


async def test_scores_of_a_match_in_play_carry_the_tally(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    await client.post(f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1]))
    body = await scores(client, match_id)
    assert body["scores"] == [0, 0]
    assert body["deal_scores"] == []
    assert body["winner"] is None
    assert body["current"] == {
        "deal": 1,
        "teams": [
            {
                "team": 0,
                "cards": 0,
                "diamonds": 0,
                "settebello": False,
                "primiera": None,
                "sweeps": 0,
                "clinched": [],
            },
            {
                "team": 1,
                "cards": 2,
                "diamonds": 0,
                "settebello": False,
                "primiera": None,
                "sweeps": 0,
                "clinched": [],
            },
        ],
    }


async def test_scores_while_waiting_and_once_finished_have_no_tally(client: Client) -> None:
    waiting = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    body = await scores(client, waiting["match"]["id"])
    assert (body["current"], body["scores"], body["deal_scores"]) == (None, [0, 0], [])
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    final = await play_out(client, match_id, tokens(created))
    body = await scores(client, match_id)
    assert body["current"] is None
    assert body["winner"] == final["winner"] is not None
    assert body["scores"] == final["scores"]
    deal_scores = body["deal_scores"]
    assert isinstance(deal_scores, list)
    assert deal_scores[-1]["scores"] == final["scores"]
    assert sum(d["teams"][0]["total"] for d in deal_scores) == final["scores"][0]


async def test_scores_answer_401_and_404(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(f"/v1/matches/{match_id}/scores", headers=bearer("x"))
    assert answer.status_code == 401
    assert (await client.get(f"/v1/matches/{'A' * 22}/scores")).status_code == 404


async def test_hint_for_the_seat_to_play(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    legal = (await client.get(f"/v1/matches/{match_id}", headers=bearer(seat[1]))).json()[
        "legal_moves"
    ]
    answer = await client.get(f"/v1/matches/{match_id}/hint", headers=bearer(seat[1]))
    assert answer.status_code == 200
    hint = answer.json()
    assert hint["level"] == "hard"
    assert hint["reason"]
    assert {"card": hint["card"], "capture": hint["capture"], "sweep": hint["sweep"]} in legal
    answer = await client.get(
        f"/v1/matches/{match_id}/hint", params={"level": "easy"}, headers=bearer(seat[1])
    )
    assert answer.json()["level"] == "easy"


async def test_hint_errors_in_order(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    route = f"/v1/matches/{match_id}/hint"
    answer = await client.get(route, params={"level": "godlike"})
    assert answer.status_code == 401
    answer = await client.get(route, params={"level": "godlike"}, headers=bearer("forged"))
    assert answer.status_code == 401
    answer = await client.get(route, params={"level": "godlike"}, headers=bearer(seat[1]))
    assert answer.status_code == 400
    assert problem_type(answer) == "unknown-level"
    answer = await client.get(route, headers=bearer(seat[0]))
    assert answer.status_code == 409
    assert problem_type(answer) == "not-your-turn"
    waiting = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    answer = await client.get(
        f"/v1/matches/{waiting['match']['id']}/hint", headers=bearer(tokens(waiting)[0])
    )
    assert answer.status_code == 409
    assert problem_type(answer) == "match-not-active"
    assert (await client.get(f"/v1/matches/{'A' * 22}/hint")).status_code == 404


@pytest.mark.parametrize("level", LEVELS)
async def test_hint_from_the_real_ai_in_a_thread(
    client: Client, service: Services, level: str
) -> None:
    ai = PooledAi(0, budget_ms=20)
    service.ai_work.ai = ai
    try:
        created = await create(client)
        match_id, seat = created["match"]["id"], tokens(created)
        answer = await client.get(
            f"/v1/matches/{match_id}/hint", params={"level": level}, headers=bearer(seat[1])
        )
        assert answer.status_code == 200
        assert answer.json()["card"] in ("7C", "5S", "KH")
    finally:
        await ai.close()
