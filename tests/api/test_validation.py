"""api.validation: every schema problem of a body, from the Struct types alone."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import pytest
from msgspec import UNSET, Meta, UnsetType

from scopa.api.errors import AMBIGUOUS, ApiError
from scopa.api.parsing import decode_body
from scopa.api.validation import problems


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
