"""Ambiguous credentials are 400 (ambiguous-request), checked after 404 and before 401:
two Authorization headers, ``?token=`` twice, or ``?token=`` outside the events routes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.support import FIXED_MATCH, Client, bearer, create, problem_type, tokens, view

UNKNOWN = "A" * 22
# Every route that reads a token: method, path under the match (None: no match), body.
ROUTES: dict[str, tuple[str, str | None, Any]] = {
    "view": ("GET", "", None),
    "scores": ("GET", "/scores", None),
    "hint": ("GET", "/hint", None),
    "move": ("POST", "/moves", {"card": "5S"}),
    "join": ("POST", "/seats/0/join", None),
    "events": ("GET", "/events", None),
    "stream": ("GET", "/events/stream", None),
    "lobby": ("GET", None, None),
    "create": ("POST", None, FIXED_MATCH),
}
EVENTS = {"events", "stream"}


async def send(
    client: Client, route: str, match_id: str, headers: Any = (), params: Any = ()
) -> Any:
    method, path, body = ROUTES[route]
    url = "/v1/matches" if path is None else f"/v1/matches/{match_id}{path}"
    return await client.request(method, url, json=body, headers=list(headers), params=params)


def twice(first: str, second: str) -> list[tuple[str, str]]:
    return [("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")]


@pytest.mark.parametrize("route", ROUTES)
async def test_two_authorization_headers_are_400_even_when_both_are_valid(
    client: Client, route: str
) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    for headers in (twice(seat[1], seat[1]), twice(seat[1], "forged")):
        answer = await send(client, route, match_id, headers)
        assert answer.status_code == 400, answer.text
        assert problem_type(answer) == "ambiguous-request"
        assert answer.json()["invalid_params"][0]["name"] == "Authorization"
    assert (await view(client, match_id))["version"] == 0


@pytest.mark.parametrize("route", [r for r in ROUTES if r not in EVENTS])
async def test_query_token_outside_the_events_routes_is_400(client: Client, route: str) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    for params in ({"token": seat[1]}, {"token": "forged"}, {"token": ""}):
        answer = await send(client, route, match_id, bearer(seat[1]).items(), params)
        assert answer.status_code == 400, answer.text
        assert problem_type(answer) == "ambiguous-request"
        assert answer.json()["invalid_params"][0]["name"] == "token"
    assert (await view(client, match_id))["version"] == 0


@pytest.mark.parametrize("route", sorted(EVENTS))
async def test_the_events_routes_take_one_query_token(client: Client, route: str) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    answer = await send(client, route, match_id, params=[("token", seat[0]), ("token", seat[0])])
    assert answer.status_code == 400
    assert problem_type(answer) == "ambiguous-request"
    # One, with a header too: the header wins, as before.
    answer = await send(client, route, match_id, bearer(seat[1]).items(), {"token": "forged"})
    assert answer.status_code == 200


@pytest.mark.parametrize("route", [r for r, (_, path, _) in ROUTES.items() if path is not None])
async def test_an_unknown_match_is_404_before_any_credential_check(
    client: Client, route: str
) -> None:
    for headers, params in (
        (twice("a", "b"), {}),
        ((), {"token": "a"} if route not in EVENTS else [("token", "a"), ("token", "b")]),
        ([("Authorization", "Basic dXNlcjpwdw==")], {}),
    ):
        answer = await send(client, route, UNKNOWN, headers, params)
        assert answer.status_code == 404, answer.text
        assert problem_type(answer) == "not-found"


async def test_ambiguity_is_checked_before_the_token(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await send(client, "view", match_id, twice("forged", "forged"))
    assert answer.status_code == 400
    answer = await send(client, "view", match_id, bearer("forged").items(), {"token": "forged"})
    assert answer.status_code == 400
    answer = await send(client, "view", match_id, bearer("forged").items())
    assert answer.status_code == 401
