"""Joining open seats, and the lobby of waiting matches."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.support import Client, bearer, create, event_types, problem_type, tokens, view

OPEN_2 = {"seats": [{"kind": "human"}, {"kind": "open"}]}


async def join(client: Client, match_id: str, seat: int, **kwargs: Any) -> Any:
    return await client.post(f"/v1/matches/{match_id}/seats/{seat}/join", **kwargs)


async def test_joining_the_last_open_seat_deals(client: Client) -> None:
    created = await create(client, {"seats": [{"kind": "open"}, {"kind": "open"}]})
    match_id = created["match"]["id"]
    assert created["tokens"] == []
    first = await join(client, match_id, 1)
    assert first.status_code == 200
    assert first.json()["seat"] == 1
    waiting = await view(client, match_id, first.json()["token"])
    assert (waiting["status"], waiting["version"], waiting["you"]) == ("waiting", 1, 1)
    assert waiting["seats"][1]["kind"] == "human"
    second = await join(client, match_id, 0, content=b"{}")
    assert second.status_code == 200
    active = await view(client, match_id, second.json()["token"])
    assert (active["status"], active["version"], active["deal"]) == ("active", 2, 1)
    assert len(active["hand"]) == 3
    events = (await client.get(f"/v1/matches/{match_id}/events")).json()["events"]
    assert event_types(events)[:3] == ["seat_joined", "seat_joined", "deal_started"]


async def test_join_errors(client: Client) -> None:
    created = await create(client, OPEN_2)
    match_id = created["match"]["id"]
    answer = await join(client, match_id, 0)
    assert answer.status_code == 409
    assert problem_type(answer) == "seat-not-open"
    for seat in (2, -1):
        answer = await join(client, match_id, seat)
        assert answer.status_code == 404
        assert problem_type(answer) == "no-such-seat"
    answer = await join(client, "A" * 22, 1)
    assert answer.status_code == 404
    assert problem_type(answer) == "not-found"
    # An Authorization header that is no bearer token is refused, as everywhere.
    answer = await join(client, match_id, 1, headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert answer.status_code == 401
    assert problem_type(answer) == "invalid-token"


async def test_on_an_open_seat_a_token_is_ignored(client: Client) -> None:
    other = await create(client)
    for token in ("forged", tokens(other)[0]):
        match_id = (await create(client, OPEN_2))["match"]["id"]
        answer = await join(client, match_id, 1, headers=bearer(token))
        assert answer.status_code == 200, answer.text
        assert (await view(client, match_id, answer.json()["token"]))["you"] == 1


@pytest.mark.parametrize("content", [b'{"seat": 1}', b"[]", b"null", b"{", b"1"])
async def test_a_body_with_members_or_not_an_object_is_400(client: Client, content: bytes) -> None:
    match_id = (await create(client, OPEN_2))["match"]["id"]
    answer = await join(client, match_id, 1, content=content)
    assert answer.status_code == 400
    assert (await view(client, match_id))["status"] == "waiting"


async def test_a_seat_holder_may_take_another_open_seat(client: Client) -> None:
    created = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    answer = await join(client, created["match"]["id"], 1, headers=bearer(tokens(created)[0]))
    assert answer.status_code == 200


async def test_join_replays_with_the_same_key(client: Client) -> None:
    match_id = (await create(client, OPEN_2))["match"]["id"]
    key = {"Idempotency-Key": "join-key-0000001"}
    first = await join(client, match_id, 1, headers=key)
    # No body and an empty object are equal requests.
    again = await join(client, match_id, 1, headers=key, content=b"{}")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert (await view(client, match_id, first.json()["token"]))["you"] == 1


async def test_a_join_key_under_16_characters_is_400(client: Client) -> None:
    match_id = (await create(client, OPEN_2))["match"]["id"]
    answer = await join(client, match_id, 1, headers={"Idempotency-Key": "k" * 15})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "Idempotency-Key"
    assert (await view(client, match_id))["seats"][1]["kind"] == "open"


async def test_join_key_is_scoped_to_the_seat(client: Client) -> None:
    match_id = (await create(client, {"seats": [{"kind": "open"}] * 4}))["match"]["id"]
    key = {"Idempotency-Key": "join-key-0000002"}
    first = await join(client, match_id, 1, headers=key)
    second = await join(client, match_id, 2, headers=key)
    assert first.json()["seat"] == 1
    assert second.json()["seat"] == 2


async def test_lobby_lists_waiting_matches_oldest_first_in_pages(client: Client) -> None:
    made = [(await create(client, OPEN_2))["match"]["id"] for _ in range(5)]
    await create(client)  # active: not listed
    full = (await create(client, OPEN_2))["match"]["id"]
    await join(client, full, 1)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 2, "status": "waiting"}
        if cursor:
            params["cursor"] = cursor
        answer = await client.get("/v1/matches", params=params)
        assert answer.status_code == 200
        page = answer.json()
        assert all(m["status"] == "waiting" and m["hand"] is None for m in page["matches"])
        seen += [m["id"] for m in page["matches"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == made
    assert pages == 3


async def test_lobby_default_limit_and_last_page(client: Client) -> None:
    for _ in range(3):
        await create(client, OPEN_2)
    page = (await client.get("/v1/matches")).json()
    assert len(page["matches"]) == 3
    assert page["next_cursor"] is None


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 101},
        {"limit": "x"},
        {"status": "finished"},
        {"status": "Active"},
        {"cursor": "garbage!"},
    ],
)
async def test_lobby_rejects_bad_parameters(client: Client, params: dict[str, Any]) -> None:
    answer = await client.get("/v1/matches", params=params)
    assert answer.status_code == 400
    assert problem_type(answer) in ("validation-error", "invalid-cursor")


async def test_lobby_refuses_a_forged_token(client: Client) -> None:
    answer = await client.get("/v1/matches", headers=bearer("forged"))
    assert answer.status_code == 401
