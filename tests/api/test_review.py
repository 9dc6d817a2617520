"""GET /v1/matches/{id}/review?seat=N: the coach's judgement of
each card a seat played, computed once by the AI service and then read back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scopa.domain.ai import review as coach
from scopa.domain.ai.review import Review
from tests.api.support import Client, create, finish, problem_type, tokens
from tests.fakes import FirstMoveAi
from tests.support.databases import sqlite_only
from tests.support.in_process import InProcess

database_url = sqlite_only()


HUMAN = {"kind": "human"}
TWO_PLAYERS = {"seats": [HUMAN, HUMAN], "rules": {"target": 1}, "seed": 3}


@pytest.fixture(autouse=True)
def fewer_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The coach judges over fewer sampled deals than in play: these tests are about how a
    review is asked for, computed, kept and refused, not about its figures."""
    monkeypatch.setattr(coach, "REVIEW_WORLDS", 8)


async def finished(client: Client, body: dict[str, Any] = TWO_PLAYERS) -> str:
    created = await create(client, body)
    match_id = str(created["match"]["id"])
    await finish(client, match_id, tokens(created))
    return match_id


async def review(client: Client, match_id: str, seat: Any, method: str = "GET") -> Any:
    url = f"/v1/matches/{match_id}/review"
    return await client.request(method, url, params={"seat": seat}, timeout=60)


def ai_of(stored: InProcess) -> FirstMoveAi:
    ai = stored.service.ai_work.ai
    assert isinstance(ai, FirstMoveAi)
    return ai


async def test_each_card_the_seat_played_is_judged(stored: InProcess) -> None:
    client = stored.client
    match_id = await finished(client)
    log = (await client.get(f"/v1/matches/{match_id}/events", params={"limit": 500})).json()
    for seat in (0, 1):
        answer = await review(client, match_id, seat)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        plays = [e for e in log["events"] if e["type"] == "card_played" and e["seat"] == seat]
        assert body["seat"] == seat
        assert [m["seq"] for m in body["moves"]] == [e["seq"] for e in plays]
        assert [m["played"] for m in body["moves"]] == [
            {"card": e["card"], "capture": e["capture"]} for e in plays
        ]
        assert all(m["loss"] >= 0 and round(m["loss"], 2) == m["loss"] for m in body["moves"])
        assert body["total_loss"] == round(sum(m["loss"] for m in body["moves"]), 2)
        # A move judged as good as the expert's gives nothing away.
        assert all(m["loss"] == 0 for m in body["moves"] if m["best"] == m["played"])


async def test_a_review_is_computed_once_and_kept(stored: InProcess) -> None:
    client = stored.client
    match_id = await finished(client)
    ai = ai_of(stored)
    before = ai.reviews
    answers = await asyncio.gather(*(review(client, match_id, 1) for _ in range(4)))
    assert {a.status_code for a in answers} == {200}
    assert len({a.text for a in answers}) == 1
    assert ai.reviews == before + 1  # concurrent requests shared one computation
    again = await review(client, match_id, 1)
    assert again.json() == answers[0].json()
    assert ai.reviews == before + 1  # and later ones read it back
    kept = await stored.kept.review(match_id, 1)
    assert isinstance(kept, Review)
    assert kept.seat == 1


async def test_a_head_computes_nothing(stored: InProcess) -> None:
    client = stored.client
    match_id = await finished(client)
    before = ai_of(stored).reviews
    answer = await review(client, match_id, 0, method="HEAD")
    assert answer.status_code == 200
    assert answer.content == b""
    assert ai_of(stored).reviews == before


async def test_refusals(stored: InProcess) -> None:
    client = stored.client
    waiting = await create(client, {"seats": [HUMAN, {"kind": "open"}]})
    match_id = waiting["match"]["id"]
    early = await review(client, match_id, 0)
    assert (early.status_code, problem_type(early)) == (409, "match-not-finished")
    done = await finished(client)
    seat: int | str
    for seat in (2, 3):
        lacking = await review(client, done, seat)
        assert (lacking.status_code, problem_type(lacking)) == (404, "no-such-seat"), seat
    for seat in (-1, 9, "one", "01"):
        refused = await review(client, done, seat)
        assert (refused.status_code, problem_type(refused)) == (400, "validation-error"), seat
    missing = await client.get(f"/v1/matches/{done}/review")
    assert missing.status_code == 400
    unknown = await review(client, "A" * 22, 0)
    assert (unknown.status_code, problem_type(unknown)) == (404, "not-found")
    forged = await client.get(
        f"/v1/matches/{done}/review", params={"seat": 0}, headers={"Authorization": "Bearer x"}
    )
    assert (forged.status_code, problem_type(forged)) == (401, "invalid-token")
    assert ai_of(stored).reviews == 0
