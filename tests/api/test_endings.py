"""POST /v1/matches/{id}/resign and /abort: answers, refusals in docs/api.md's order, If-Match
and Idempotency-Key as for moves; end_reason in views and reason in match_finished."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.api.support import (
    FIXED_MATCH,
    Client,
    bearer,
    create,
    play_out,
    problem_type,
    tokens,
    view,
)
from tests.fakes import FakeStore

OPEN_2 = {"seats": [{"kind": "human"}, {"kind": "open"}]}


async def end(
    client: Client,
    how: str,
    match_id: str,
    token: str | None,
    content: bytes | None = None,
    /,
    **headers: str,
) -> Any:
    sent = {**headers, **(bearer(token) if token else {})}
    return await client.post(f"/v1/matches/{match_id}/{how}", content=content, headers=sent)


async def fixed(client: Client, body: dict[str, Any] | None = None) -> tuple[str, dict[int, str]]:
    created = await create(client, body or FIXED_MATCH)
    return created["match"]["id"], tokens(created)


async def events(client: Client, match_id: str) -> list[dict[str, Any]]:
    answer = await client.get(f"/v1/matches/{match_id}/events")
    return list(answer.json()["events"])


async def play_5s(client: Client, match_id: str, token: str) -> None:
    answer = await client.post(
        f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(token)
    )
    assert answer.status_code == 200, answer.text


async def test_resigning_answers_the_callers_view_and_the_other_team_wins(client: Client) -> None:
    match_id, seat = await fixed(client)
    await play_5s(client, match_id, seat[1])
    answer = await end(client, "resign", match_id, seat[1])
    assert answer.status_code == 200
    assert answer.headers["etag"] == '"2"'
    body = answer.json()
    assert (body["status"], body["end_reason"], body["winner"], body["you"]) == (
        "finished", "resigned", 0, 1,
    )  # fmt: skip
    # The deal as it stood, unscored: seat 1 played one card of three.
    assert (body["hand"], body["turn"], body["deal_scores"]) == ([], None, [])
    assert [s["hand_count"] for s in body["seats"]] == [3, 2]
    assert body["table"] == ["2C", "3D", "4S"]
    assert body["deck_count"] == 30
    assert body["teams"][1]["captured"] == ["5H", "5S"]
    log = await events(client, match_id)
    assert [e["type"] for e in log] == ["deal_started", "card_played", "match_finished"]
    assert log[-1] == {
        "type": "match_finished", "seq": 3, "winner": 0, "scores": [0, 0], "reason": "resigned",
    }  # fmt: skip
    assert log[1]["auto"] is False
    assert (await view(client, match_id))["end_reason"] == "resigned"


async def test_in_four_players_the_resigners_team_loses(client: Client) -> None:
    match_id, seat = await fixed(client, {"seats": [{"kind": "human"}] * 4})
    answer = await end(client, "resign", match_id, seat[2])
    assert answer.json()["winner"] == 1


async def test_a_match_that_ends_by_score_says_so(client: Client) -> None:
    match_id, seat = await fixed(client, {**FIXED_MATCH, "rules": {"target": 1}})
    final = await play_out(client, match_id, seat)
    assert (final["status"], final["end_reason"]) == ("finished", "score")
    assert (await events(client, match_id))[-1]["reason"] == "score"


@pytest.mark.parametrize("how", ["resign", "abort"])
async def test_404_then_401_before_a_bad_body(client: Client, how: str) -> None:
    unknown = await end(client, how, "A" * 22, "forged", b"[", **{"If-Match": "bad"})
    assert (unknown.status_code, problem_type(unknown)) == (404, "not-found")
    match_id, _ = await fixed(client)
    for token in (None, "forged"):
        answer = await end(client, how, match_id, token, b"[", **{"If-Match": "bad"})
        assert (answer.status_code, problem_type(answer)) == (401, "invalid-token")


@pytest.mark.parametrize("how", ["resign", "abort"])
@pytest.mark.parametrize("content", [b'{"seat": 1}', b"[]", b"null", b"{", b"1"])
async def test_a_body_with_members_or_not_an_object_is_400(
    client: Client, how: str, content: bytes
) -> None:
    match_id, seat = await fixed(client)
    answer = await end(client, how, match_id, seat[0], content)
    assert (answer.status_code, problem_type(answer)) == (400, "validation-error")
    assert (await view(client, match_id))["status"] == "active"


@pytest.mark.parametrize("how", ["resign", "abort"])
async def test_no_body_or_an_empty_object_will_do(client: Client, how: str) -> None:
    for content in (None, b"{}"):
        match_id, seat = await fixed(client)
        answer = await end(client, how, match_id, seat[0], content)
        assert answer.status_code == 200, answer.text


async def test_a_body_sent_as_anything_but_json_is_415(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await end(client, "resign", match_id, seat[0], b"{}", **{"Content-Type": "text/plain"})
    assert (answer.status_code, problem_type(answer)) == (415, "unsupported-media-type")


@pytest.mark.parametrize("how", ["resign", "abort"])
async def test_if_match_as_for_moves(client: Client, how: str) -> None:
    match_id, seat = await fixed(client)
    malformed = await end(client, how, match_id, seat[0], **{"If-Match": "0"})
    assert malformed.status_code == 400
    assert malformed.json()["invalid_params"][0]["name"] == "If-Match"
    stale = await end(client, how, match_id, seat[0], **{"If-Match": '"3"'})
    assert (stale.status_code, problem_type(stale)) == (412, "stale-version")
    # An empty If-Match lists no version: none is the match's (RFC 9110, 13.1.1).
    for empty in ("", "  "):
        none = await end(client, how, match_id, seat[0], **{"If-Match": empty})
        assert (none.status_code, problem_type(none)) == (412, "stale-version"), empty
        assert "expects no version" in none.json()["detail"]
    assert (await view(client, match_id))["status"] == "active"
    current = await end(client, how, match_id, seat[0], **{"If-Match": 'W/"0"'})
    assert current.status_code == 200


async def test_not_active_is_409_before_a_stale_version(client: Client) -> None:
    created = await create(client, OPEN_2)
    match_id, seat = created["match"]["id"], tokens(created)
    waiting = await end(client, "resign", match_id, seat[0], **{"If-Match": '"9"'})
    assert (waiting.status_code, problem_type(waiting)) == (409, "match-not-active")
    assert (await end(client, "abort", match_id, seat[0])).status_code == 200
    again = await end(client, "resign", match_id, seat[0], **{"If-Match": '"9"'})
    assert (again.status_code, problem_type(again)) == (409, "match-not-active")


async def test_an_idempotent_retry_gets_the_first_answer_and_ends_the_match_once(
    client: Client, store: FakeStore
) -> None:
    match_id, seat = await fixed(client)
    key = {"Idempotency-Key": "end-1"}
    first = await end(client, "resign", match_id, seat[0], **key)
    saves = store.saves
    again = await end(client, "resign", match_id, seat[0], b"{}", **key)
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["etag"] == first.headers["etag"] == '"1"'
    assert store.saves == saves
    other = await end(client, "abort", match_id, seat[0], **key)
    assert (other.status_code, problem_type(other)) == (422, "idempotency-key-reused")
    assert [e["type"] for e in await events(client, match_id)].count("match_finished") == 1


async def test_a_waiting_match_aborted_leaves_the_lobby_and_closes_its_seats(
    client: Client,
) -> None:
    created = await create(client, OPEN_2)
    match_id, seat = created["match"]["id"], tokens(created)
    answer = await end(client, "abort", match_id, seat[0])
    assert answer.status_code == 200
    body = answer.json()
    assert (body["status"], body["end_reason"], body["winner"], body["version"]) == (
        "finished", "aborted", None, 1,
    )  # fmt: skip
    assert body["seats"][1]["kind"] == "open"
    lobby = (await client.get("/v1/matches")).json()
    assert lobby["matches"] == []
    joined = await client.post(f"/v1/matches/{match_id}/seats/1/join")
    assert (joined.status_code, problem_type(joined)) == (409, "seat-not-open")
    log = await events(client, match_id)
    assert log == [
        {"type": "match_finished", "seq": 1, "winner": None, "scores": [0, 0], "reason": "aborted"}
    ]


async def test_abort_stands_until_a_human_plays_a_card(client: Client) -> None:
    match_id, seat = await fixed(client)
    await play_5s(client, match_id, seat[1])
    for token in seat.values():
        refused = await end(client, "abort", match_id, token)
        assert (refused.status_code, problem_type(refused)) == (409, "cannot-abort")
    assert (await view(client, match_id))["status"] == "active"


async def test_an_ai_card_does_not_stop_an_abort(client: Client) -> None:
    # Dealer 1: seat 0, the AI, leads; the runner plays its card at once.
    created = await create(
        client, {"seats": [{"kind": "ai", "level": "easy"}, {"kind": "human"}], "first_dealer": 1}
    )
    match_id, seat = created["match"]["id"], tokens(created)
    for _ in range(200):
        state = await view(client, match_id)
        if state["turn"] == 1:
            break
        await asyncio.sleep(0.01)
    assert state["version"] == 1
    answer = await end(client, "abort", match_id, seat[1])
    assert (answer.status_code, answer.json()["end_reason"]) == (200, "aborted")


async def test_a_finished_match_cannot_be_aborted(client: Client) -> None:
    match_id, seat = await fixed(client)
    assert (await end(client, "resign", match_id, seat[0])).status_code == 200
    answer = await end(client, "abort", match_id, seat[1], **{"If-Match": '"9"'})
    assert (answer.status_code, problem_type(answer)) == (409, "cannot-abort")


@pytest.mark.parametrize(
    ("rules", "name"),
    [
        ({"turn_seconds": 4}, "rules.turn_seconds"),
        ({"turn_seconds": 86_401}, "rules.turn_seconds"),
        ({"turn_seconds": "30"}, "rules.turn_seconds"),
        ({"turn_seconds": 5.5}, "rules.turn_seconds"),
        ({"on_timeout": "pass"}, "rules.on_timeout"),
        ({"on_timeout": None}, "rules.on_timeout"),
    ],
)
async def test_clock_options_outside_the_schema_are_400(
    client: Client, rules: dict[str, Any], name: str
) -> None:
    answer = await client.post("/v1/matches", json={**FIXED_MATCH, "rules": rules})
    assert (answer.status_code, problem_type(answer)) == (400, "validation-error")
    assert answer.json()["invalid_params"][0]["name"] == name


async def test_a_clocked_match_shows_its_deadline_and_echoes_its_options(client: Client) -> None:
    body = {**FIXED_MATCH, "rules": {"turn_seconds": 30, "on_timeout": "forfeit"}}
    match_id, seat = await fixed(client, body)
    shown = await view(client, match_id, seat[0])
    assert (shown["rules"]["turn_seconds"], shown["rules"]["on_timeout"]) == (30, "forfeit")
    deadline = shown["turn_deadline"]
    assert deadline is not None
    assert deadline.endswith("Z")
    assert len(deadline) == len("2026-12-01T10:00:05.250Z")
    unclocked = await view(client, (await fixed(client))[0])
    assert unclocked["turn_deadline"] is None
    timeless = {**FIXED_MATCH, "rules": {"on_timeout": "forfeit"}}
    assert (await view(client, (await fixed(client, timeless))[0]))["turn_deadline"] is None
