"""POST /v1/matches: 201 with Location and tokens; 400 for schema errors, 422 for the
impossible, each naming the bad field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.support import DECK, FIXED_MATCH, Client, bearer, create, problem_type, view
from tests.fakes import FakeStore

# Keys of creates are secrets: 16 characters at least.
CREATE_KEY = "0f6e3c1a-create-key-1"
OTHER_KEY = "0f6e3c1a-create-key-2"


async def test_create_answers_spectator_view_tokens_and_location(client: Client) -> None:
    answer = await client.post("/v1/matches", json=FIXED_MATCH)
    assert answer.status_code == 201
    body = answer.json()
    match = body["match"]
    assert answer.headers["location"] == f"/v1/matches/{match['id']}"
    assert match["you"] is None
    assert match["hand"] is None
    assert match["status"] == "active"
    assert match["version"] == 0
    assert match["rules"] == {
        "target": 11,
        "hand_size": 3,
        "capture": "match",
        "ace_sweeps": "off",
        "king_of_diamonds": False,
        "diamond_sequence": False,
        "turn_seconds": None,
        "on_timeout": "autoplay",
        "reveal_ai_hands": False,
        "deal": "scopa",
    }
    assert (match["end_reason"], match["turn_deadline"]) == (None, None)
    assert [t["seat"] for t in body["tokens"]] == [0, 1]
    assert len({t["token"] for t in body["tokens"]}) == 2
    mine = await view(client, match["id"], body["tokens"][1]["token"])
    assert mine["hand"] == ["7C", "5S", "KH"]
    assert mine["table"] == ["2C", "5H", "3D", "4S"]


async def test_tokens_are_stored_only_as_hashes(client: Client, store: FakeStore) -> None:
    body = await create(client)
    hashes = store.tokens[body["match"]["id"]]
    for t in body["tokens"]:
        assert t["token"] not in hashes
        assert len(t["token"]) >= 40


async def test_match_ids_are_unguessable(client: Client) -> None:
    ids = {(await create(client))["match"]["id"] for _ in range(5)}
    assert len(ids) == 5
    assert all(len(i) == 22 for i in ids)


async def test_open_seat_waits_with_empty_deal(client: Client) -> None:
    body = await create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    match = body["match"]
    assert match["status"] == "waiting"
    assert (match["deal"], match["dealer"], match["turn"]) == (0, None, None)
    assert match["deck_count"] == 40
    assert match["table"] == []
    assert [t["captured"] for t in match["teams"]] == [[], []]
    assert [t["seat"] for t in body["tokens"]] == [0]
    mine = await view(client, match["id"], body["tokens"][0]["token"])
    assert mine["hand"] == []


async def test_rules_defaults_are_echoed_with_diamond_sequence_target(client: Client) -> None:
    body = await create(
        client, {"seats": [{"kind": "human"}] * 2, "rules": {"diamond_sequence": True}}
    )
    assert body["match"]["rules"]["target"] == 21


async def test_a_whole_number_written_with_a_point_is_that_integer(client: Client) -> None:
    """JSON has one kind of number, as JSON Schema says: 11.0 is the integer 11."""
    seats = [{"kind": "human"}] * 2
    body = await create(client, {"seats": seats, "rules": {"target": 11.0}})
    assert body["match"]["rules"]["target"] == 11
    answer = await client.post("/v1/matches", json={"seats": seats, "rules": {"target": 11.5}})
    assert (answer.status_code, problem_type(answer)) == (400, "validation-error")
    assert [p["name"] for p in answer.json()["invalid_params"]] == ["rules.target"]


async def test_same_seed_same_deal(client: Client) -> None:
    request = {"seats": [{"kind": "human"}] * 2, "seed": 2**63 - 1}
    first = await create(client, request)
    second = await create(client, request)
    assert first["match"]["table"] == second["match"]["table"]
    assert first["match"]["dealer"] == second["match"]["dealer"]


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ({"seats": [{"kind": "human"}]}, "seats"),
        ({"seats": [{"kind": "human"}] * 5}, "seats"),
        ({}, "seats"),
        ({"seats": [{"kind": "human"}, {"kind": "ai"}]}, "seats[1].level"),
        ({"seats": [{"kind": "human", "level": "easy"}, {"kind": "human"}]}, "seats[0].level"),
        ({"seats": [{"kind": "human"}, {"kind": "ai", "level": "godlike"}]}, "seats[1].level"),
        ({"seats": [{"kind": "robot"}, {"kind": "human"}]}, "seats[0].kind"),
        ({"seats": [{}, {"kind": "human"}]}, "seats[0].kind"),
        ({"seats": [{"kind": "human"}] * 2, "extra": 1}, "extra"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"target": 0}}, "rules.target"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"target": 101}}, "rules.target"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"target": "11"}}, "rules.target"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"target": 11.5}}, "rules.target"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"hand_size": 4}}, "rules.hand_size"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"capture": "all"}}, "rules.capture"),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"speed": 1}}, "rules.speed"),
        (
            {"seats": [{"kind": "human"}] * 2, "rules": {"king_of_diamonds": 1}},
            "rules.king_of_diamonds",
        ),
        ({"seats": [{"kind": "human"}] * 2, "seed": -1}, "seed"),
        ({"seats": [{"kind": "human"}] * 2, "seed": 2**63}, "seed"),
        ({"seats": [{"kind": "human"}] * 2, "seed": "5"}, "seed"),
        ({"seats": [{"kind": "human"}] * 2, "first_dealer": -1}, "first_dealer"),
        ({"seats": [{"kind": "human"}] * 4, "first_dealer": 4}, "first_dealer"),
        ({"seats": [{"kind": "human"}] * 2, "decks": [["7D", "XX"]]}, "decks[0][1]"),
        ({"seats": [{"kind": "human"}] * 2, "decks": [["7d"]]}, "decks[0][0]"),
        ({"seats": [{"kind": "human"}] * 2, "decks": [["10D"]]}, "decks[0][0]"),
        ({"seats": [{"kind": "human"}] * 2, "decks": "7D"}, "decks"),
    ],
)
async def test_schema_errors_are_400_naming_the_field(
    client: Client, body: dict[str, Any], name: str
) -> None:
    answer = await client.post("/v1/matches", json=body)
    assert answer.status_code == 400
    assert problem_type(answer) == "validation-error"
    assert [p["name"] for p in answer.json()["invalid_params"]] == [name]


async def test_every_bad_field_is_named_at_once(client: Client) -> None:
    body = {
        "seats": [{"kind": "human", "level": "easy"}, {"kind": "ai"}, {"kind": "robot"}],
        "rules": {"target": 500, "speed": 1},
        "seed": "5",
        "decks": [["7D", "XX", "AS", "10D"]],
        "extra": 1,
    }
    answer = await client.post("/v1/matches", json=body)
    assert answer.status_code == 400
    assert problem_type(answer) == "validation-error"
    named = [p["name"] for p in answer.json()["invalid_params"]]
    assert named == [
        "seats[0].level",
        "seats[1].level",
        "seats[2].kind",
        "rules.target",
        "rules.speed",
        "seed",
        "decks[0][1]",
        "decks[0][3]",
        "extra",
    ]
    assert all(p["reason"] for p in answer.json()["invalid_params"])
    # The issue's own case: an unknown field and an out-of-range target, both named.
    two = await client.post(
        "/v1/matches", json={"seats": [{"kind": "human"}] * 2, "x": 1, "rules": {"target": 0}}
    )
    assert [p["name"] for p in two.json()["invalid_params"]] == ["x", "rules.target"]


@pytest.mark.parametrize(
    ("content", "names"),
    [
        (b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 1, "seed": 2}', ["seed"]),
        (
            b'{"seats": [{"kind": "human", "kind": "ai"}, {"kind": "human"}],'
            b' "rules": {"target": 11, "target": 21}}',
            ["rules.target", "seats[0].kind"],
        ),
        # Equal values are no excuse: the body still says the key twice.
        (b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 1, "seed": 1}', ["seed"]),
    ],
    ids=["top", "nested", "equal"],
)
async def test_a_key_given_twice_is_400(
    client: Client, store: FakeStore, content: bytes, names: list[str]
) -> None:
    answer = await client.post(
        "/v1/matches", content=content, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400
    assert problem_type(answer) == "ambiguous-request"
    assert [p["name"] for p in answer.json()["invalid_params"]] == names
    assert not store.records


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"[]", b"null", b'{"seats": [}', b"\xff\xfe", b"[" * 60_000],
    ids=["empty", "open", "array", "null", "broken", "binary", "deep"],
)
async def test_unparsable_bodies_are_400(client: Client, content: bytes) -> None:
    answer = await client.post(
        "/v1/matches", content=content, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400
    assert problem_type(answer) == "validation-error"


async def test_deep_nesting_within_the_size_limit_is_400(client: Client) -> None:
    nested = b'{"seats": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    answer = await client.post(
        "/v1/matches", content=nested, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400


async def test_oversized_body_is_413(client: Client) -> None:
    huge = b'{"seats": [' + b'{"kind": "human"},' * 10_000 + b'{"kind": "human"}]}'
    answer = await client.post(
        "/v1/matches", content=huge, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 413
    assert problem_type(answer) == "payload-too-large"


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"seats": [{"kind": "human"}] * 3}, ["seats"]),
        ({"seats": [{"kind": "human"}] * 2, "decks": [DECK[:39]]}, ["decks[0]"]),
        ({"seats": [{"kind": "human"}] * 2, "decks": [DECK, [*DECK[:39], DECK[0]]]}, ["decks[1]"]),
        ({"seats": [{"kind": "human"}] * 4, "rules": {"hand_size": 6}}, ["rules.hand_size"]),
        (
            {
                "seats": [{"kind": "human"}] * 2,
                "rules": {"capture": "fifteen", "ace_sweeps": "sweep"},
            },
            ["rules.ace_sweeps"],
        ),
        ({"seats": [{"kind": "human"}] * 2, "first_dealer": 2}, ["first_dealer"]),
        ({"seats": [{"kind": "human"}] * 2, "rules": {"deal": "scopone"}}, ["rules.deal"]),
        (
            {"seats": [{"kind": "human"}] * 2, "rules": {"deal": "scopone", "hand_size": 6}},
            ["rules.hand_size", "rules.deal"],
        ),
        (
            {"seats": [{"kind": "human"}] * 4, "rules": {"deal": "scopone", "hand_size": 6}},
            ["rules.hand_size"],
        ),
        (
            {
                "seats": [{"kind": "human"}] * 3,
                "rules": {"capture": "fifteen", "ace_sweeps": "sweep"},
                "decks": [DECK[:-1] + DECK[:1]],
                "first_dealer": 3,
            },
            ["seats", "rules.ace_sweeps", "decks[0]", "first_dealer"],
        ),
    ],
)
async def test_impossible_setups_are_422_naming_the_field(
    client: Client, body: dict[str, Any], names: list[str]
) -> None:
    answer = await client.post("/v1/matches", json=body)
    assert answer.status_code == 422
    assert problem_type(answer) == "invalid-setup"
    assert [p["name"] for p in answer.json()["invalid_params"]] == names


async def test_four_players_and_first_dealer(client: Client) -> None:
    body = await create(client, {"seats": [{"kind": "human"}] * 4, "first_dealer": 3})
    assert body["match"]["dealer"] == 3
    assert body["match"]["turn"] == 0
    assert [t["team"] for t in body["match"]["seats"]] == [0, 1, 0, 1]


async def test_scopone_deals_ten_cards_a_seat_to_an_empty_table(client: Client) -> None:
    body = await create(
        client,
        {
            "seats": [{"kind": "human"}] * 4,
            "rules": {"deal": "scopone", "target": 16},
            "first_dealer": 1,
        },
    )
    match = body["match"]
    assert match["rules"]["deal"] == "scopone"
    assert match["rules"]["target"] == 16
    assert (match["dealer"], match["turn"]) == (1, 2)
    assert (match["table"], match["deck_count"]) == ([], 0)
    assert [s["hand_count"] for s in match["seats"]] == [10, 10, 10, 10]
    answer = await client.post(
        "/v1/matches", json={"seats": [{"kind": "human"}] * 2, "rules": {"deal": "briscola"}}
    )
    assert answer.status_code == 400


async def test_a_token_of_no_match_is_401_on_create(client: Client) -> None:
    answer = await client.post("/v1/matches", json=FIXED_MATCH, headers=bearer("forged"))
    assert answer.status_code == 401
    assert problem_type(answer) == "invalid-token"
    assert answer.headers["www-authenticate"] == "Bearer"
    issued = (await create(client))["tokens"][0]["token"]
    answer = await client.post("/v1/matches", json=FIXED_MATCH, headers=bearer(issued))
    assert answer.status_code == 201


async def test_idempotent_create_replays_the_first_answer(client: Client, store: FakeStore) -> None:
    first = await client.post(
        "/v1/matches", json=FIXED_MATCH, headers={"Idempotency-Key": CREATE_KEY}
    )
    # Equal as JSON: other key order and spacing.
    same = {k: FIXED_MATCH[k] for k in reversed(list(FIXED_MATCH))}
    again = await client.post("/v1/matches", json=same, headers={"Idempotency-Key": CREATE_KEY})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    assert len(store.records) == 1
    other = await client.post(
        "/v1/matches", json={**FIXED_MATCH, "seed": 8}, headers={"Idempotency-Key": CREATE_KEY}
    )
    assert other.status_code == 422
    assert problem_type(other) == "idempotency-key-reused"
    assert len(store.records) == 1


async def test_failed_create_does_not_keep_the_key(client: Client, store: FakeStore) -> None:
    bad = {"seats": [{"kind": "human"}] * 3}
    answer = await client.post("/v1/matches", json=bad, headers={"Idempotency-Key": OTHER_KEY})
    assert answer.status_code == 422
    assert store.keys.claims == {}
    answer = await client.post(
        "/v1/matches", json=FIXED_MATCH, headers={"Idempotency-Key": OTHER_KEY}
    )
    assert answer.status_code == 201


@pytest.mark.parametrize(
    "key",
    [b"", b"x" * 15, b"x" * 256, "caf\u00e9-caf\u00e9-caf\u00e9".encode()],
    ids=["empty", "short", "long", "utf8"],
)
async def test_malformed_idempotency_key_is_400(client: Client, key: bytes) -> None:
    answer = await client.post("/v1/matches", json=FIXED_MATCH, headers={b"Idempotency-Key": key})
    assert answer.status_code == 400
    assert answer.json()["invalid_params"][0]["name"] == "Idempotency-Key"


@pytest.mark.parametrize("length", [16, 255])
async def test_a_create_key_of_16_to_255_characters_is_taken(client: Client, length: int) -> None:
    key = "k" * length
    first = await client.post("/v1/matches", json=FIXED_MATCH, headers={"Idempotency-Key": key})
    again = await client.post("/v1/matches", json=FIXED_MATCH, headers={"Idempotency-Key": key})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
