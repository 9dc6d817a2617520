"""Display names on human seats, at create and in join."""

from __future__ import annotations

from typing import Any

import pytest

from scopa.api.schemas import NAME_PATTERN
from tests.api.support import Client, create, join, problem_type, view
from tests.support.databases import sqlite_only
from tests.support.in_process import InProcess

database_url = sqlite_only()


OPEN = {"kind": "open"}


def named(*names: Any) -> dict[str, Any]:
    return {"seats": [{"kind": "human", "name": n} for n in names]}


ACCEPTED = [
    ("Ada", "Ada"),
    ("  Ada Lovelace  ", "Ada Lovelace"),
    ("x" * 32, "x" * 32),
    ("  " + "x" * 32 + " ", "x" * 32),
    ("\u00e9l\u00e8ve \U0001f0cf", "\u00e9l\u00e8ve \U0001f0cf"),
    ("\u00a0", "\u00a0"),  # a no-break space is no U+0020 and no control character
    ("a  b", "a  b"),
]
REFUSED = [
    "",
    " ",
    "   ",
    "x" * 33,
    " " + "x" * 33 + " ",
    "A\u0000",
    "A\nB",
    "Ada\n",
    "\nAda",
    "A\tB",
    "\u007f",
    "Ada\u0085",
    "\u009f",
    "A\rB",
    None,
    7,
    ["Ada"],
    {"first": "Ada"},
    True,
]


async def test_names_are_shown_to_everyone(stored: InProcess) -> None:
    client = stored.client
    body = {"seats": [{"kind": "human", "name": " Ada "}, OPEN, {"kind": "ai", "level": "easy"},
                      {"kind": "human"}]}  # fmt: skip
    created = await create(client, body)
    match_id = created["match"]["id"]
    assert [s["name"] for s in created["match"]["seats"]] == ["Ada", None, None, None]
    lobby = (await client.get("/v1/matches")).json()["matches"]
    assert [s["name"] for s in lobby[0]["seats"]] == ["Ada", None, None, None]
    joined = await join(client, match_id, 1, json={"name": "Bo"})
    assert joined.status_code == 200, joined.text
    for token in (None, joined.json()["token"]):
        assert [s["name"] for s in (await view(client, match_id, token))["seats"]] == [
            "Ada",
            "Bo",
            None,
            None,
        ]
    events = (await client.get(f"/v1/matches/{match_id}/events")).json()["events"]
    assert events[0] == {
        "seq": 1,
        "type": "seat_joined",
        "seat": 1,
        "name": "Bo",
        "player": None,
    }


@pytest.mark.parametrize(("given", "kept"), ACCEPTED)
async def test_a_name_is_trimmed_of_spaces_and_kept(
    stored: InProcess, given: str, kept: str
) -> None:
    created = await create(stored.client, {"seats": [{"kind": "human", "name": given}, OPEN]})
    assert created["match"]["seats"][0]["name"] == kept
    joined = await join(stored.client, created["match"]["id"], 1, json={"name": given})
    assert joined.status_code == 200, joined.text
    assert (await view(stored.client, created["match"]["id"]))["seats"][1]["name"] == kept


@pytest.mark.parametrize("name", REFUSED, ids=repr)
async def test_a_bad_name_is_400_and_changes_nothing(stored: InProcess, name: Any) -> None:
    client = stored.client
    answer = await client.post(
        "/v1/matches", json={"seats": [{"kind": "human", "name": name}, OPEN]}
    )
    assert answer.status_code == 400, answer.text
    assert problem_type(answer) == "validation-error"
    assert [p["name"] for p in answer.json()["invalid_params"]] == ["seats[0].name"]
    assert await stored.match_count() == 0
    match_id = (await create(client, {"seats": [{"kind": "human"}, OPEN]}))["match"]["id"]
    answer = await join(client, match_id, 1, json={"name": name})
    assert answer.status_code == 400, answer.text
    assert [p["name"] for p in answer.json()["invalid_params"]] == ["name"]
    waiting = await view(client, match_id)
    assert (waiting["version"], waiting["seats"][1]["kind"]) == (0, "open")


# What the server shows of its own, and look-alikes of it: no seat may pass for it.
KEPT = ["deleted player", "Deleted_Player", "Expert AI", "3xpert A1", "Computer (hard)", "open"]


@pytest.mark.parametrize("name", KEPT)
async def test_a_name_the_server_shows_of_its_own_is_422_and_changes_nothing(
    stored: InProcess, name: str
) -> None:
    client = stored.client
    answer = await client.post(
        "/v1/matches",
        json={"seats": [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": name}]},
    )
    assert (answer.status_code, problem_type(answer)) == (422, "invalid-setup"), answer.text
    assert [p["name"] for p in answer.json()["invalid_params"]] == ["seats[1].name"]
    assert await stored.match_count() == 0
    match_id = (await create(client, {"seats": [{"kind": "human"}, OPEN]}))["match"]["id"]
    answer = await join(client, match_id, 1, json={"name": name})
    assert (answer.status_code, problem_type(answer)) == (422, "invalid-setup"), answer.text
    assert [p["name"] for p in answer.json()["invalid_params"]] == ["name"]
    waiting = await view(client, match_id)
    assert (waiting["version"], waiting["seats"][1]["kind"]) == (0, "open")


@pytest.mark.parametrize(
    "seat", [{"kind": "ai", "level": "easy", "name": "Hal"}, {**OPEN, "name": "x"}]
)
async def test_a_name_on_another_kind_of_seat_is_an_unknown_field(
    client: Client, seat: dict[str, Any]
) -> None:
    answer = await client.post("/v1/matches", json={"seats": [{"kind": "human"}, seat]})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "seats[1].name"


async def test_join_refuses_any_other_member(client: Client) -> None:
    match_id = (await create(client, {"seats": [{"kind": "human"}, OPEN]}))["match"]["id"]
    answer = await join(client, match_id, 1, json={"name": "Bo", "seat": 1})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "seat"


async def test_a_join_replays_only_with_the_same_name(client: Client) -> None:
    match_id = (await create(client, {"seats": [{"kind": "human"}, OPEN]}))["match"]["id"]
    key = {"Idempotency-Key": "join-with-a-name"}
    first = await join(client, match_id, 1, headers=key, json={"name": "Bo"})
    again = await join(client, match_id, 1, headers=key, json={"name": "Bo"})
    assert again.json() == first.json()
    other = await join(client, match_id, 1, headers=key, json={"name": "Bob"})
    assert (other.status_code, problem_type(other)) == (422, "idempotency-key-reused")


async def test_the_document_states_the_rule_as_a_pattern(client: Client) -> None:
    doc = (await client.get("/schema/openapi.json")).json()["components"]["schemas"]
    for schema in ("HumanSeat", "JoinRequest"):
        name = doc[schema]["properties"]["name"]
        assert name["type"] == "string"
        assert name["pattern"] == NAME_PATTERN
        assert "name" not in doc[schema].get("required", [])
    assert "name" not in doc["AiSeat"]["properties"]
    assert "name" not in doc["OpenSeat"]["properties"]
