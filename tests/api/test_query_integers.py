"""Integer query parameters are plain decimal integers: an optional minus sign and ASCII
digits, nothing else. Anything looser (``1e3``, ``1.0``, ``+5``, ...) is a 400 naming the
parameter, never read as some integer; the range checks then apply as before."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.support import Client, create, play_out, problem_type, tokens
from tests.support.in_process import InProcess

SHORT = {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"target": 1}, "seed": 3}
OPEN_2 = {"seats": [{"kind": "human"}, {"kind": "open"}]}
EVENTS = "/v1/matches/{id}/events"
STREAM = "/v1/matches/{id}/events/stream"
LOBBY = "/v1/matches"
REVIEW = "/v1/matches/{id}/review"
MY_MATCHES = "/v1/me/matches"
LEADERBOARD = "/v1/leaderboard"
OPEN_CHALLENGES = "/v1/challenges"
MY_CHALLENGES = "/v1/me/challenges"
MY_CHALLENGE_NEWS = "/v1/me/challenges/stream"
HISTORY = "/v1/players/{handle}/ratings"
# Every integer query parameter of every route, as the API document names them.
INTEGER_PARAMETERS = [
    (EVENTS, "after"),
    (STREAM, "after"),
    (LOBBY, "limit"),
    (REVIEW, "seat"),
    (MY_MATCHES, "limit"),
    (LEADERBOARD, "limit"),
    (OPEN_CHALLENGES, "limit"),
    (MY_CHALLENGES, "limit"),
    (MY_CHALLENGE_NEWS, "after"),
    (HISTORY, "limit"),
]
# What a route needs besides the parameter under test.
REQUIRED = {LEADERBOARD: {"format": "2p-11"}, HISTORY: {"format": "2p-11"}}
MALFORMED = [
    "1e3",
    "1.0",
    "1e1",
    "2.0",
    "+5",
    " 5",
    "5 ",
    "0x10",
    "5_000",
    "\u0661\u0662",  # Arabic-Indic digits: int() takes them, the API does not
    "",
    "-",
    "1\n",
    "007",  # as in JSON, no leading zeros: one way to write each integer
]


# One app for the module: each test is refused or only reads.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def client(module_app: InProcess) -> Client:
    return module_app.client


def parse_sse_ids(text: str) -> list[int]:
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


def _route(template: str, match_id: str) -> str:
    return template.format(id=match_id, handle="nobody")


def assert_names(answer: Any, name: str) -> None:
    assert answer.status_code == 400, answer.text
    assert problem_type(answer) == "validation-error"
    names = [p["name"] for p in answer.json()["invalid_params"]]
    assert name in names, answer.text


@pytest.mark.parametrize(("route", "name"), INTEGER_PARAMETERS)
@pytest.mark.parametrize("value", MALFORMED)
async def test_a_malformed_integer_is_400_naming_it(
    client: Client, route: str, name: str, value: str
) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(
        _route(route, match_id), params={**REQUIRED.get(route, {}), name: value}
    )
    assert_names(answer, name)


@pytest.mark.parametrize(("route", "name"), INTEGER_PARAMETERS)
async def test_every_value_of_a_repeated_parameter_is_checked(
    client: Client, route: str, name: str
) -> None:
    match_id = (await create(client))["match"]["id"]
    for values in (["2", "1e3"], ["1.0", "2"]):
        answer = await client.get(
            _route(route, match_id), params={**REQUIRED.get(route, {}), name: values}
        )
        assert_names(answer, name)


@pytest.mark.parametrize(("route", "name"), INTEGER_PARAMETERS)
@pytest.mark.parametrize("value", ["-1", "1000000000", str(10**25)])
async def test_out_of_range_integers_are_still_400(
    client: Client, route: str, name: str, value: str
) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(
        _route(route, match_id), params={**REQUIRED.get(route, {}), name: value}
    )
    assert_names(answer, name)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e3", "-0.5"])
async def test_wait_refuses_what_is_no_number_of_seconds(client: Client, value: str) -> None:
    match_id = (await create(client))["match"]["id"]
    answer = await client.get(_route(EVENTS, match_id), params={"wait": value})
    assert_names(answer, "wait")


async def test_after_3_still_works_on_both_events_routes(client: Client) -> None:
    created = await create(client, SHORT)
    match_id = created["match"]["id"]
    await play_out(client, match_id, tokens(created))
    page = await client.get(_route(EVENTS, match_id), params={"after": "3"})
    assert page.status_code == 200, page.text
    seqs = [e["seq"] for e in page.json()["events"]]
    assert seqs == list(range(4, page.json()["last_seq"] + 1))
    # A finished match's stream sends what there is and ends.
    stream = await client.get(_route(STREAM, match_id), params={"after": "3"})
    assert stream.status_code == 200, stream.text
    assert parse_sse_ids(stream.text) == seqs
    # A minus sign is allowed by the syntax (the range check then decides); -0 is 0.
    page = await client.get(_route(EVENTS, match_id), params={"after": "-0"})
    assert page.status_code == 200, page.text
    assert page.json()["events"][0]["seq"] == 1


async def test_a_missing_required_parameter_is_named(client: Client) -> None:
    answer = await client.get(LEADERBOARD)
    assert_names(answer, "format")


async def test_limit_2_still_works(client: Client) -> None:
    for _ in range(3):
        await create(client, OPEN_2)
    answer = await client.get(LOBBY, params={"limit": "2"})
    assert answer.status_code == 200, answer.text
    assert len(answer.json()["matches"]) == 2
    assert answer.json()["next_cursor"] is not None


async def test_the_tests_cover_every_integer_query_parameter(client: Client) -> None:
    doc = (await client.get("/schema/openapi.json")).json()
    documented = {
        (path.replace("{match_id}", "{id}"), parameter["name"])
        for path, item in doc["paths"].items()
        for operation in item.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query" and parameter["schema"].get("type") == "integer"
    }
    assert documented == set(INTEGER_PARAMETERS)
