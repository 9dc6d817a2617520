"""POST /v1/matches/{id}/moves: every row of docs/api.md's check order, If-Match, replays."""

from __future__ import annotations

import time
from typing import Any

import pytest

from scopa.service.idempotency import Claim
from scopa.service.ids import token_hash
from tests.api.support import (
    Client,
    bearer,
    create,
    play_out,
    problem_type,
    tokens,
    view,
)
from tests.fakes import FakeStore
from tests.support.in_process import InProcess

# One app for the module: each test plays a match of its own.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def client(module_app: InProcess) -> Client:
    return module_app.client


@pytest.fixture
def store(module_app: InProcess) -> FakeStore:
    assert isinstance(module_app.store, FakeStore)
    return module_app.store


async def fixed(client: Client) -> tuple[str, dict[int, str]]:
    created = await create(client)
    return created["match"]["id"], tokens(created)


async def move(
    client: Client,
    match_id: str,
    token: str | None,
    body: Any = None,
    **headers: str,
) -> Any:
    sent = dict(headers)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    if isinstance(body, bytes):
        return await client.post(
            f"/v1/matches/{match_id}/moves",
            content=body,
            headers={**sent, "Content-Type": "application/json"},
        )
    return await client.post(
        f"/v1/matches/{match_id}/moves", json={"card": "5S"} if body is None else body, headers=sent
    )


async def test_a_move_answers_the_movers_view_and_bumps_the_version(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], {"card": "5S"})
    assert answer.status_code == 200
    assert answer.headers["etag"] == '"1"'
    body = answer.json()
    assert (body["version"], body["you"], body["turn"]) == (1, 1, 0)
    assert body["hand"] == ["7C", "KH"]
    assert body["table"] == ["2C", "3D", "4S"]
    assert body["teams"][1]["captured"] == ["5H", "5S"]
    assert body["legal_moves"] == []


async def test_explicit_capture(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], {"card": "7C", "capture": ["4S", "3D"]})
    assert answer.status_code == 200
    assert answer.json()["table"] == ["2C", "5H"]


# -- the order: 404, 401, 400, 422/409 (key), 409, 412, 422 ------------------------------


async def test_404_comes_first(client: Client) -> None:
    answer = await move(client, "A" * 22, None, b"not json", **{"If-Match": "bad"})
    assert answer.status_code == 404
    assert problem_type(answer) == "not-found"


@pytest.mark.parametrize("token", [None, "forged"])
async def test_401_before_a_bad_body(client: Client, token: str | None) -> None:
    match_id, _ = await fixed(client)
    answer = await move(client, match_id, token, b"not json", **{"If-Match": "bad"})
    assert answer.status_code == 401
    assert problem_type(answer) == "invalid-token"


@pytest.mark.parametrize(
    ("body", "name"),
    [
        (b"not json", "body"),
        (b"", "body"),
        (b"[]", "body"),
        ({"card": 7}, "card"),
        ({"card": "7d"}, "card"),
        ({"card": "10C"}, "card"),
        ({"capture": []}, "card"),
        ({"card": "5S", "capture": "5H"}, "capture"),
        ({"card": "5S", "capture": ["5h"]}, "capture[0]"),
        ({"card": "5S", "capture": [5]}, "capture[0]"),
        ({"card": "5S", "seat": 1}, "seat"),
    ],
)
async def test_malformed_bodies_are_400(client: Client, body: Any, name: str) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], body)
    assert answer.status_code == 400
    assert problem_type(answer) == "validation-error"
    assert answer.json()["invalid_params"][0]["name"] == name


async def test_a_card_given_twice_is_400_not_the_last_one(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], b'{"card": "ZZ", "card": "5S"}')
    assert answer.status_code == 400
    assert problem_type(answer) == "ambiguous-request"
    assert answer.json()["invalid_params"][0]["name"] == "card"
    assert (await view(client, match_id))["version"] == 0


@pytest.mark.parametrize("if_match", ["0", "17", '"abc"', "W/0", '"0", "1"', '"-1"', 'W/ "0"'])
async def test_malformed_if_match_is_400(client: Client, if_match: str) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], **{"If-Match": if_match})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "If-Match"


@pytest.mark.parametrize("if_match", ['"0"', 'W/"0"', "*", ' "0" '])
async def test_if_match_naming_the_current_version_plays(client: Client, if_match: str) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], **{"If-Match": if_match})
    assert answer.status_code == 200


async def test_400_before_the_idempotency_key_check(client: Client) -> None:
    match_id, seat = await fixed(client)
    assert (await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})).status_code == 200
    answer = await move(client, match_id, seat[1], {"card": 7}, **{"Idempotency-Key": "k"})
    assert answer.status_code == 400


async def test_key_reused_with_another_body_is_422_before_the_turn(client: Client) -> None:
    match_id, seat = await fixed(client)
    assert (await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})).status_code == 200
    answer = await move(
        client, match_id, seat[1], {"card": "KH"}, **{"Idempotency-Key": "k", "If-Match": '"9"'}
    )
    assert answer.status_code == 422
    assert problem_type(answer) == "idempotency-key-reused"


async def test_key_in_flight_is_409(client: Client, store: FakeStore) -> None:
    match_id, seat = await fixed(client)
    scope = token_hash(seat[1])
    store.keys.claims[(scope, Claim(scope, "k", "").stored.key)] = ("running", None, time.time())
    answer = await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})
    assert answer.status_code == 409
    assert problem_type(answer) == "idempotency-key-in-flight"
    assert (await view(client, match_id))["version"] == 0


async def test_keys_are_scoped_to_the_token(client: Client) -> None:
    match_id, seat = await fixed(client)
    assert (await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})).status_code == 200
    answer = await move(client, match_id, seat[0], {"card": "AC"}, **{"Idempotency-Key": "k"})
    assert answer.status_code == 200
    assert answer.json()["you"] == 0


async def test_replay_returns_the_first_answer_and_changes_nothing(
    client: Client, store: FakeStore
) -> None:
    match_id, seat = await fixed(client)
    first = await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})
    saves = store.saves
    again = await move(client, match_id, seat[1], **{"Idempotency-Key": "k"})
    assert again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["etag"] == '"1"'
    assert store.saves == saves
    assert (await view(client, match_id))["version"] == 1


async def test_a_failed_answer_is_not_kept(client: Client) -> None:
    match_id, seat = await fixed(client)
    refused = await move(client, match_id, seat[1], {"card": "7C"}, **{"Idempotency-Key": "k"})
    assert refused.status_code == 422
    answer = await move(client, match_id, seat[1], {"card": "7C"}, **{"Idempotency-Key": "k"})
    assert answer.status_code == 422
    assert problem_type(answer) == "illegal-move"


async def test_waiting_match_is_not_active_before_the_turn_check(client: Client) -> None:
    created = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    match_id = created["match"]["id"]
    answer = await move(client, match_id, tokens(created)[0], {"card": "AC"}, **{"If-Match": '"3"'})
    assert answer.status_code == 409
    assert problem_type(answer) == "match-not-active"


async def test_finished_match_is_not_active(client: Client) -> None:
    created = await create(
        client, {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"target": 1}}
    )
    match_id, seat = created["match"]["id"], tokens(created)
    final = await play_out(client, match_id, seat)
    assert final["status"] == "finished"
    answer = await move(client, match_id, seat[0], {"card": "AC"})
    assert answer.status_code == 409
    assert problem_type(answer) == "match-not-active"


async def test_not_your_turn_before_a_stale_version(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[0], {"card": "AC"}, **{"If-Match": '"5"'})
    assert answer.status_code == 409
    assert problem_type(answer) == "not-your-turn"


async def test_stale_version_before_an_illegal_move(client: Client) -> None:
    match_id, seat = await fixed(client)
    answer = await move(client, match_id, seat[1], {"card": "6D"}, **{"If-Match": 'W/"5"'})
    assert answer.status_code == 412
    assert problem_type(answer) == "stale-version"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"card": "6D"}, "not in your hand"),
        ({"card": "7C"}, "say which"),
        ({"card": "7C", "capture": None}, "say which"),
        ({"card": "5S", "capture": ["2C", "3D"]}, "cannot take"),
        ({"card": "5S", "capture": []}, "compulsory"),
        ({"card": "5S", "capture": ["5H", "5H"]}, "twice"),
        ({"card": "5S", "capture": ["5D"]}, "not on the table"),
        ({"card": "7C", "capture": ["2C", "5H", "3D"]}, "cannot take"),
    ],
)
async def test_illegal_moves_are_422_with_every_legal_move(
    client: Client, body: dict[str, Any], says: str
) -> None:
    match_id, seat = await fixed(client)
    legal = (await view(client, match_id, seat[1]))["legal_moves"]
    answer = await move(client, match_id, seat[1], body)
    assert answer.status_code == 422
    assert problem_type(answer) == "illegal-move"
    assert says in answer.json()["detail"]
    assert answer.json()["legal_moves"] == legal
    after = await view(client, match_id, seat[1])
    assert (after["version"], after["hand"]) == (0, ["7C", "5S", "KH"])


async def test_a_card_that_takes_nothing_may_omit_capture(client: Client) -> None:
    match_id, seat = await fixed(client)
    await move(client, match_id, seat[1], {"card": "5S"})
    answer = await move(client, match_id, seat[0], {"card": "AC"})
    assert answer.status_code == 200
    assert answer.json()["table"] == ["2C", "3D", "4S", "AC"]


async def test_sequential_duplicates_lose_with_409(client: Client) -> None:
    match_id, seat = await fixed(client)
    first = await move(client, match_id, seat[1], **{"Idempotency-Key": "a"})
    second = await move(client, match_id, seat[1], **{"Idempotency-Key": "b"})
    assert first.status_code == 200
    assert second.status_code == 409
    assert problem_type(second) == "not-your-turn"
    assert (await view(client, match_id))["version"] == 1


async def test_spectator_cannot_play(client: Client) -> None:
    match_id, _ = await fixed(client)
    answer = await client.post(f"/v1/matches/{match_id}/moves", json={"card": "5S"})
    assert answer.status_code == 401
    answer = await client.post(
        f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer("")
    )
    assert answer.status_code == 401
