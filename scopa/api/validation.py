"""Every way a decoded JSON body misses its msgspec type, not only the first.

msgspec stops at the first error it meets. Once it has refused a body, this walks the
type beside the value: a Struct member by member (unknown members, missing ones, each
present one against its own type), a tagged union by its tag, a list item by item;
anything else goes to msgspec whole. So one mechanism, driven by the Struct types
themselves, names every bad field of a body at once; each reason in words
(``api.wording``), saying what the field takes.
"""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

import msgspec
from msgspec import UnsetType

from scopa.api.wording import REQUIRED_FIELD, UNKNOWN_FIELD, reason, tags

_AT = re.compile(r"^(?P<reason>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_FIELD = re.compile(r"^Object (?:contains unknown|missing required) field `(?P<field>[^`]*)`")
_UNIONS = (Union, types.UnionType)

Problem = tuple[str, str]  # (dotted path, "" for the whole body; reason)


def message_problem(message: str, path: str = "", type_: Any = None) -> Problem:
    """msgspec's "reason - at `$.seats[1].level`" as ("seats[1].level", words), under
    ``path``; an unknown or missing field is named by its own path. ``type_`` is what was
    expected at ``path``: it words a reason found there."""
    match = _AT.match(message)
    said = match["reason"] if match else message
    deeper = (match and match["path"]) or ""
    at = _join(path, deeper)
    named = _FIELD.match(said)
    if named:
        at = _join(at, "." + named["field"])
    return at, reason(said, None if deeper or named else type_)


def problems(value: object, type_: Any) -> list[Problem]:
    """Each place where ``value`` (decoded JSON) does not fit ``type_``, in body order."""
    found: list[Problem] = []
    _walk(value, type_, "", found)
    return found


def _join(path: str, step: str) -> str:
    """``step`` is ".name" or "[index]", as msgspec writes a path after its ``$``."""
    return (path + step).lstrip(".")


def _unwrap(type_: Any) -> tuple[Any, tuple[Any, ...]]:
    """The type inside any ``Annotated``, and the constraints it carried."""
    metas: tuple[Any, ...] = ()
    while get_origin(type_) is Annotated:
        type_, *more = get_args(type_)
        metas += tuple(more)
    return type_, metas


def _is_struct(type_: Any) -> bool:
    return isinstance(type_, type) and issubclass(type_, msgspec.Struct)


def _walk(value: object, type_: Any, path: str, found: list[Problem]) -> None:
    inner, metas = _unwrap(type_)
    origin = get_origin(inner)
    if _is_struct(inner):
        _struct(value, inner, path, found)
    elif origin in _UNIONS:
        _union(value, type_, [o for o in get_args(inner) if o is not UnsetType], path, found)
    elif origin is list:
        # The list itself (its type, its length) first; then each item on its own.
        if _fits(value, Annotated[(list[Any], *metas)] if metas else list[Any], path, found):
            assert isinstance(value, list)
            (item,) = get_args(inner)
            for index, member in enumerate(value):
                _walk(member, item, f"{path}[{index}]", found)
    else:
        _fits(value, type_, path, found)


def _fits(value: object, type_: Any, path: str, found: list[Problem]) -> bool:
    try:
        msgspec.convert(value, type=type_)
    except msgspec.ValidationError as exc:
        found.append(message_problem(str(exc), path, type_))
        return False
    return True


def _union(value: object, whole: Any, options: list[Any], path: str, found: list[Problem]) -> None:
    if value is None and type(None) in options:
        return
    others = [o for o in options if o is not type(None)]
    if len(others) == 1:
        inner = _unwrap(others[0])[0]
        if (_is_struct(inner) and isinstance(value, dict)) or (
            get_origin(inner) is list and isinstance(value, list)
        ):
            _walk(value, others[0], path, found)
        else:  # nothing to walk into: the union's words, null included where it is allowed
            _fits(value, whole, path, found)
        return
    tagged = tags(others)
    if tagged is not None and isinstance(value, dict):
        field, names = tagged
        for option in others:
            struct = _unwrap(option)[0]
            if value.get(field) == struct.__struct_config__.tag:
                _struct(value, struct, path, found)
                return
        choice = f"one of {', '.join(names)}"
        if field not in value:
            choice = f"{REQUIRED_FIELD}, {choice}"
        found.append((_join(path, f".{field}"), choice))
        return
    # No member to follow (not an object, an untagged union): the union's own words.
    _fits(value, whole, path, found)


def _struct(value: object, struct: type[msgspec.Struct], path: str, found: list[Problem]) -> None:
    if not isinstance(value, dict):
        _fits(value, struct, path, found)
        return
    config = struct.__struct_config__
    fields = {f.encode_name: f for f in msgspec.structs.fields(struct)}
    for name, member in value.items():
        if name == config.tag_field:
            continue  # the union that led here has read it
        field = fields.get(name)
        if field is not None:
            _walk(member, field.type, _join(path, f".{name}"), found)
        elif config.forbid_unknown_fields:
            found.append((_join(path, f".{name}"), UNKNOWN_FIELD))
    for name, field in fields.items():
        if field.required and name not in value:
            found.append((_join(path, f".{name}"), REQUIRED_FIELD))
