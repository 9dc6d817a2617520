"""GET /v1/matches/{id}: what a seat, or a spectator, may see; ETag; 404 before 401."""

from __future__ import annotations

import pytest

from tests.api.support import Client, bearer, create, problem_type, tokens, view


async def test_spectator_sees_no_hand_and_no_moves(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(f"/v1/matches/{match_id}")
    assert answer.status_code == 200
    assert answer.headers["etag"] == '"0"'
    body = answer.json()
    assert (body["you"], body["hand"], body["legal_moves"]) == (None, None, [])
    assert [s["hand_count"] for s in body["seats"]] == [3, 3]


async def test_seat_sees_its_hand_and_its_moves_on_its_turn(client: Client) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    mine = await view(client, match_id, seat[1])
    assert mine["you"] == 1
    assert mine["turn"] == 1
    sevens = [m["capture"] for m in mine["legal_moves"] if m["card"] == "7C"]
    assert sorted(sevens) == [["2C", "5H"], ["3D", "4S"]]
    assert {"card": "5S", "capture": ["5H"], "sweep": False} in mine["legal_moves"]
    other = await view(client, match_id, seat[0])
    assert (other["you"], other["hand"], other["legal_moves"]) == (0, ["AC", "AD", "AH"], [])


@pytest.mark.parametrize("match_id", ["x", "A" * 22, "A" * 23, "../../etc", "%00"])
async def test_unknown_or_malformed_ids_are_404(client: Client, match_id: str) -> None:
    answer = await client.get(f"/v1/matches/{match_id}")
    assert answer.status_code == 404
    assert problem_type(answer) == "not-found"


async def test_unknown_match_is_404_even_with_a_bad_token(client: Client) -> None:
    answer = await client.get("/v1/matches/" + "A" * 22, headers=bearer("nope"))
    assert answer.status_code == 404


@pytest.mark.parametrize(
    "authorization", ["Bearer nope", "Bearer ", "Basic dXNlcjpwdw==", "nope", "Bearer"]
)
async def test_invalid_tokens_are_401(client: Client, authorization: str) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(f"/v1/matches/{match_id}", headers={"Authorization": authorization})
    assert answer.status_code == 401
    assert problem_type(answer) == "invalid-token"


async def test_a_token_of_another_match_is_401(client: Client) -> None:
    first = await create(client)
    second = await create(client)
    answer = await client.get(
        f"/v1/matches/{second['match']['id']}", headers=bearer(tokens(first)[0])
    )
    assert answer.status_code == 401


async def test_unknown_route_and_method_are_problems(client: Client) -> None:
    answer = await client.get("/v2/matches")
    assert answer.status_code == 404
    assert problem_type(answer) == "not-found"
    answer = await client.delete("/v1/matches")
    assert answer.status_code == 405
    assert problem_type(answer) == "method-not-allowed"
