"""What a field takes, in words: every reason a 400 gives for a value that misses its type.

msgspec explains a refusal in its own terms ("Expected `str` matching regex '^...$'",
"Invalid enum value 'x'"), which a person cannot act on. Here a reason says what the field
takes instead, read from the type itself (its bounds, its lengths, its allowed values)
and, for a pattern, from the words written for it below: the one place to change when a
request type gains a pattern (a test holds every pattern of a request body to a wording).
"""

from __future__ import annotations

import enum
import re
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec
from msgspec import UnsetType

from scopa.api.schemas import CARD_PATTERN, NAME_PATTERN
from scopa.service.handles import HANDLE_PATTERN

PATTERNS: dict[str, str] = {
    NAME_PATTERN: "1 to 32 characters, no control characters",
    HANDLE_PATTERN: "3 to 24 characters of A-Z a-z 0-9 _ -",
    CARD_PATTERN: "a card: a rank A 2-7 J Q K, then a suit C D H S",
}
# msgspec's names of JSON types, as a reason names what was given.
_GIVEN = {
    "int": "an integer",
    "float": "a number with a fraction",
    "str": "a string",
    "bool": "true or false",
    "null": "null",
    "array": "an array",
    "object": "an object",
}
_UNIONS = (Union, types.UnionType)
_MISMATCH = re.compile(r"^Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`$")
_PATTERN = re.compile(r"^Expected `str` matching regex '(?P<pattern>.*)'$", re.DOTALL)
_UNKNOWN = re.compile(r"^Object contains unknown field `[^`]*`$")
_MISSING = re.compile(r"^Object missing required field `[^`]*`$")
UNKNOWN_FIELD = "not a field of this object: leave it out"
REQUIRED_FIELD = "required: give this field"


def unwrap(type_: Any) -> tuple[Any, dict[str, Any]]:
    """The type inside any ``Annotated``, and the constraints its ``Meta``s set."""
    constraints: dict[str, Any] = {}
    while get_origin(type_) is Annotated:
        type_, *metas = get_args(type_)
        for meta in metas:
            if isinstance(meta, msgspec.Meta):
                for name in ("ge", "gt", "le", "lt", "min_length", "max_length", "pattern"):
                    value = getattr(meta, name)
                    if value is not None:
                        constraints.setdefault(name, value)
    return type_, constraints


def reason(message: str, type_: Any = None, *, given: bool = True) -> str:
    """msgspec's ``message`` (its path already cut off) in words: what ``type_`` takes,
    and what was given instead when the JSON type was wrong (``given``: a query string
    holds strings only, so there it would say nothing)."""
    if _UNKNOWN.match(message):
        return UNKNOWN_FIELD
    if _MISSING.match(message):
        return REQUIRED_FIELD
    mismatch = _MISMATCH.match(message)
    if type_ is None:
        return _without_type(message, mismatch)
    wanted = expected(type_)
    if mismatch and given:
        return f"{wanted}; given {_GIVEN.get(mismatch['got'], mismatch['got'])}"
    return wanted


def _without_type(message: str, mismatch: re.Match[str] | None) -> str:
    pattern = _PATTERN.match(message)
    if pattern:
        return PATTERNS.get(pattern["pattern"], "not in the form this field takes")
    if mismatch:
        want = " or ".join(_GIVEN.get(w, w) for w in mismatch["want"].split(" | "))
        return f"{want}; given {_GIVEN.get(mismatch['got'], mismatch['got'])}"
    if message == "Number out of range":
        return "a number too large to read"
    return message


def expected(type_: Any) -> str:
    """What a value of ``type_`` must be, as a person reads it."""
    inner, constraints = unwrap(type_)
    origin = get_origin(inner)
    if origin in _UNIONS:
        return _union(inner)
    if origin is Literal:
        return "one of " + ", ".join(_json(option) for option in get_args(inner))
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        return "one of " + ", ".join(_json(member.value) for member in inner)
    if inner is bool:
        return "true or false"
    if inner is int:
        return "an integer" + _bounds(constraints)
    if inner is float:
        return "a number" + _bounds(constraints)
    if inner is str:
        pattern = constraints.get("pattern")
        if pattern is not None:
            return PATTERNS.get(pattern, "a string in the form this field takes")
        return "a string" + _lengths(constraints, "characters")
    if origin in (list, tuple) or inner in (list, tuple):
        return "a list" + _lengths(constraints, "items")
    return "an object" + _lengths(constraints, "members")


def tags(options: list[Any]) -> tuple[str, list[str]] | None:
    """The tag field and the tags of a union of tagged Structs; None for another union."""
    fields = {_tag_field(option) for option in options}
    if len(fields) != 1 or None in fields:
        return None
    (field,) = fields
    return str(field), [str(unwrap(option)[0].__struct_config__.tag) for option in options]


def _union(union: Any) -> str:
    options = [o for o in get_args(union) if o is not UnsetType]
    others = [o for o in options if o is not type(None)]
    tagged = tags(others)
    if tagged is not None:
        field, names = tagged
        text = f"an object whose {field} is one of {', '.join(names)}"
    else:
        text = " or ".join(expected(option) for option in others)
    return f"{text}, or null" if type(None) in options else text


def _tag_field(type_: Any) -> str | None:
    inner = unwrap(type_)[0]
    if isinstance(inner, type) and issubclass(inner, msgspec.Struct):
        field = inner.__struct_config__.tag_field
        return None if field is None else str(field)
    return None


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode() if not isinstance(value, str) else value


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _bounds(constraints: dict[str, Any]) -> str:
    low, high = constraints.get("ge"), constraints.get("le")
    if low is not None and high is not None:
        return f" from {_number(low)} to {_number(high)}"
    words = []
    if low is not None:
        words.append(f"of at least {_number(low)}")
    if "gt" in constraints:
        words.append(f"greater than {_number(constraints['gt'])}")
    if high is not None:
        words.append(f"of at most {_number(high)}")
    if "lt" in constraints:
        words.append(f"less than {_number(constraints['lt'])}")
    return (" " + " and ".join(words)) if words else ""


def _lengths(constraints: dict[str, Any], unit: str) -> str:
    """``unit`` in the plural ("items"), as its singular is that without the final s."""
    shortest, longest = constraints.get("min_length"), constraints.get("max_length")
    units = unit if longest != 1 and (longest is not None or shortest != 1) else unit[:-1]
    if shortest is not None and longest is not None:
        if shortest == longest:
            return f" of exactly {shortest} {units}"
        return f" of {shortest} to {longest} {unit}"
    if shortest is not None:
        return f" of at least {shortest} {units}"
    if longest is not None:
        return f" of at most {longest} {units}"
    return ""
