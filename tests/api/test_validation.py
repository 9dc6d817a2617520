"""api.validation: every schema problem of a body, from the Struct types alone, and each
reason in words (api.wording), for bodies, query parameters and headers alike."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import pytest
from msgspec import UNSET, Meta, UnsetType

from scopa.api.app import MAX_BODY_BYTES
from scopa.api.errors import AMBIGUOUS, ApiError
from scopa.api.parsing import decode_body
from scopa.api.validation import problems
from scopa.api.wording import PATTERNS
from tests.api.support import FIXED_MATCH, Client, bearer, create, problem_type, tokens

# msgspec's and Litestar's own phrasing, which no reason may show.
RAW = ("Expected `", "regex", "Invalid enum value", "Invalid value", "Object ", "Missing required")


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Cat(Strict, tag_field="kind", tag="cat"):
    lives: Annotated[int, Meta(ge=0, le=9)]


class Dog(Strict, tag_field="kind", tag="dog"):
    pass


class Inner(Strict):
    size: Literal["s", "m"] = "s"


class Outer(Strict):
    pets: Annotated[list[Cat | Dog], Meta(min_length=1, description="described, as the API's")]
    inner: Annotated[Inner, Meta(description="a described Struct")] = msgspec.field(
        default_factory=Inner
    )
    tags: Annotated[list[Annotated[str, Meta(max_length=2)]] | None, Meta(description="d")] = None
    count: Annotated[int, Meta(ge=1)] | UnsetType = UNSET


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            {
                "pets": [{"kind": "cat", "lives": 10, "x": 1}, {"kind": "cow"}, {"kind": "dog"}],
                "inner": {"size": "xl", "y": 2},
                "tags": ["ok", "long", 3],
                "count": 0,
                "z": None,
            },
            [
                "pets[0].lives",
                "pets[0].x",
                "pets[1].kind",
                "inner.size",
                "inner.y",
                "tags[1]",
                "tags[2]",
                "count",
                "z",
            ],
        ),
        ({}, ["pets"]),
        ({"pets": []}, ["pets"]),
        ({"pets": [{"kind": "cat"}, {}]}, ["pets[0].lives", "pets[1].kind"]),
        ({"pets": [{"kind": "dog"}], "tags": None, "inner": []}, ["inner"]),
        ([], [""]),
    ],
)
def test_every_problem_is_named_by_its_path(value: Any, expected: list[str]) -> None:
    found = problems(value, Outer)
    assert [path for path, _ in found] == expected
    assert all(reason for _, reason in found)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(value, Outer)


def test_a_value_that_fits_has_no_problem() -> None:
    value = {"pets": [{"kind": "cat", "lives": 9}, {"kind": "dog"}], "tags": ["a"], "count": 2}
    assert problems(value, Outer) == []
    msgspec.convert(value, Outer)


@pytest.mark.parametrize(
    "body",
    [
        b'{"card": "7:D", "card": "5S"}',  # a colon in a string as well
        b'{"a:b": 1, "a:b": 2}',  # in the repeated key itself
        b'{"card": "7D", "x": [{"k": 1, "k": 2}]}',  # deep down
    ],
)
def test_a_key_given_twice_is_refused_whatever_colons_its_strings_hold(body: bytes) -> None:
    with pytest.raises(ApiError) as refused:
        decode_body(body, dict[str, Any])
    assert refused.value.kind is AMBIGUOUS


def test_colons_inside_strings_are_no_repeated_keys() -> None:
    value, _ = decode_body(b'{"card": "7:D", "capture": ["a:b", ":"]}', dict[str, Any])
    assert value == {"card": "7:D", "capture": ["a:b", ":"]}


def test_each_reason_says_what_the_field_takes() -> None:
    value = {
        "pets": [{"kind": "cat", "lives": 10, "x": 1}, {"kind": "cow"}, {"lives": 1}],
        "inner": {"size": "xl"},
        "tags": ["ok", "long", 3],
        "count": 1.5,
    }
    assert problems(value, Outer) == [
        ("pets[0].lives", "an integer from 0 to 9"),
        ("pets[0].x", "not a field of this object: leave it out"),
        ("pets[1].kind", "one of cat, dog"),
        ("pets[2].kind", "required: give this field, one of cat, dog"),
        ("inner.size", "one of s, m"),
        ("tags[1]", "a string of at most 2 characters"),
        ("tags[2]", "a string of at most 2 characters; given an integer"),
        ("count", "an integer of at least 1; given a number with a fraction"),
    ]
    assert problems({"pets": [], "tags": "a"}, Outer) == [
        ("pets", "a list of at least 1 item"),
        ("tags", "a list, or null; given a string"),
    ]
    assert problems({"pets": ["cat"]}, Outer) == [
        ("pets[0]", "an object whose kind is one of cat, dog; given a string")
    ]


def _reasons(answer: Any) -> dict[str, str]:
    assert problem_type(answer) == "validation-error"
    body = answer.json()
    said = {p["name"]: p["reason"] for p in body["invalid_params"]}
    assert body["detail"] == "; ".join(f"{name}: {reason}" for name, reason in said.items())
    assert not [raw for raw in RAW if raw in body["detail"]], body["detail"]
    return said


async def test_a_body_is_refused_in_words(client: Client) -> None:
    answer = await client.post(
        "/v1/matches",
        json={
            "seats": [{"kind": "human", "name": "\u0007"}, {"kind": "ai", "level": "godlike"}],
            "rules": {"target": 500, "capture": "most"},
            "decks": [["7D", "10D"]],
        },
    )
    assert _reasons(answer) == {
        "seats[0].name": "1 to 32 characters, no control characters",
        "seats[1].level": "one of easy, medium, hard, expert",
        "rules.target": "an integer from 1 to 100",
        "rules.capture": "one of match, fifteen",
        "decks[0][1]": "a card: a rank A 2-7 J Q K, then a suit C D H S",
    }
    player = await client.post("/v1/players", json={"handle": "a!", "kind": "robot"})
    assert _reasons(player) == {
        "handle": "3 to 24 characters of A-Z a-z 0-9 _ -",
        "kind": "one of human, bot",
    }
    seats = await client.post("/v1/matches", json={"seats": [{"kind": "guest"}, {}]})
    assert _reasons(seats) == {
        "seats[0].kind": "one of human, open, ai",
        "seats[1].kind": "required: give this field, one of human, open, ai",
    }


async def test_a_move_is_refused_in_words(client: Client) -> None:
    created = await create(client, FIXED_MATCH)
    answer = await client.post(
        f"/v1/matches/{created['match']['id']}/moves",
        json={"card": 7, "capture": ["2C", "10H"]},
        headers=bearer(tokens(created)[1]),
    )
    card = "a card: a rank A 2-7 J Q K, then a suit C D H S"
    assert _reasons(answer) == {"card": f"{card}; given an integer", "capture[1]": card}


@pytest.mark.parametrize(
    ("path", "reasons"),
    [
        # A query parameter left out is named, with what it takes.
        (
            "/v1/leaderboard",
            {"format": "required: give this query parameter, one of 2p-11, 2p-21, 4p-11, 4p-21"},
        ),
        ("/v1/leaderboard?format=9p", {"format": "one of 2p-11, 2p-21, 4p-11, 4p-21"}),
        ("/v1/matches?status=done", {"status": "one of waiting, active"}),
        ("/v1/matches?limit=1000", {"limit": "an integer from 1 to 100"}),
        ("/v1/matches/x/events?after=-1", {"after": "an integer from 0 to 999999999"}),
        ("/v1/matches/x/events?wait=99", {"wait": "a number from 0 to 30"}),
        ("/v1/challenges?limit=0", {"limit": "an integer from 1 to 100"}),
    ],
)
async def test_a_query_parameter_is_refused_in_words(
    client: Client, path: str, reasons: dict[str, str]
) -> None:
    assert _reasons(await client.get(path)) == reasons


async def test_a_header_is_refused_in_words(client: Client) -> None:
    answer = await client.post("/v1/matches", json=FIXED_MATCH, headers={"Idempotency-Key": "k"})
    assert _reasons(answer) == {"Idempotency-Key": "must be 16 to 255 printable ASCII characters"}


async def test_the_413_names_the_limit(client: Client) -> None:
    assert MAX_BODY_BYTES == 64 * 1024
    huge = b" " * (MAX_BODY_BYTES + 1)
    answer = await client.post(
        "/v1/matches", content=huge, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 413
    assert answer.json()["detail"] == "the body is over 64 KiB"


def _patterns(node: Any, doc: dict[str, Any], seen: set[str]) -> set[str]:
    """Every pattern of a schema, following its references once each."""
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref not in seen:
            seen.add(ref)
            found |= _patterns(doc["components"]["schemas"][ref.rsplit("/", 1)[1]], doc, seen)
        if isinstance(node.get("pattern"), str):
            found.add(node["pattern"])
        for member in node.values():
            found |= _patterns(member, doc, seen)
    elif isinstance(node, list):
        for member in node:
            found |= _patterns(member, doc, seen)
    return found


async def test_every_pattern_of_a_request_body_has_its_words(client: Client) -> None:
    doc = (await client.get("/schema/openapi.json")).json()
    bodies = [
        operation["requestBody"]
        for path in doc["paths"].values()
        for operation in path.values()
        if isinstance(operation, dict) and "requestBody" in operation
    ]
    patterns = _patterns(bodies, doc, set())
    assert patterns  # names, handles and cards at least
    assert patterns <= set(PATTERNS)
