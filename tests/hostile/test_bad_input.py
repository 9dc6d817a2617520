"""Hostile input, one table: every entry must answer its 4xx as problem+json with its
stable ``type``, never a 5xx, and leave the match it was aimed at as it was (same
version, same view, same events) and create no match.

The table runs over the in-memory fakes and over SQLite; the inputs that could reach the
database as they are (a NUL byte in an id, a cursor or a token, numbers past the stored
ranges) run once more over Postgres, which refuses a NUL in text outright.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from scopa.api.app import MAX_BODY_BYTES
from tests.api.support import DECK, FIXED_MATCH
from tests.support.in_process import InProcess, serve

if TYPE_CHECKING:
    from tests.support.reliability import ReliabilityRecord

# A hang fails the test, with every thread's stack, instead of holding up the run.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

PROBLEM = "https://scopa.example/problems/"
JSON = {"Content-Type": "application/json"}
TWO = [{"kind": "human"}, {"kind": "human"}]
MID = "{id}"  # the fixed match's id, put in by the runner
# In the fixed match seat 1 is to play, holding 7C 5S KH, with 2C 5H 3D 4S on the table:
# 7C takes 2C+5H or 3D+4S, 5S must take 5H; seat 0 holds AC AD AH.
MOVER = 1
# msgspec's and Litestar's own phrasing, which no answer may show: reasons are in words.
RAW = ("Expected `", "regex", "Invalid enum value", "Invalid value", "Object ", "Missing required")


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _create(**fields: Any) -> bytes:
    return _json({"seats": TWO, **fields})


def _cursor(value: Any) -> str:
    """A cursor as the server encodes them, over anything."""
    return base64.urlsafe_b64encode(msgspec.json.encode(value)).decode().rstrip("=")


@dataclass(frozen=True)
class Bad:
    name: str
    method: str
    path: str
    status: int
    problem: str
    body: bytes | None = None
    headers: dict[str, Any] = field(default_factory=dict)
    # The seat whose token goes in the Authorization header.
    seat: int | None = None


def _move(
    name: str, body: bytes, status: int = 400, problem: str = "validation-error", **kw: Any
) -> Bad:
    headers = {**JSON, **kw.pop("headers", {})}
    return Bad(
        name, "POST", f"/v1/matches/{MID}/moves", status, problem, body, headers, MOVER, **kw
    )


def _new(
    name: str, body: bytes, status: int = 400, problem: str = "validation-error", **kw: Any
) -> Bad:
    headers = {**JSON, **kw.pop("headers", {})}
    return Bad(name, "POST", "/v1/matches", status, problem, body, headers, **kw)


def _join(
    name: str, body: bytes | None, status: int = 400, problem: str = "validation-error", **kw: Any
) -> Bad:
    return Bad(name, "POST", f"/v1/matches/{MID}/seats/1/join", status, problem, body, **kw)


def _get(
    name: str, path: str, status: int = 400, problem: str = "validation-error", **kw: Any
) -> Bad:
    return Bad(name, "GET", path, status, problem, **kw)


OVERSIZED = _json({"padding": "x" * MAX_BODY_BYTES})
DEEP_ARRAYS = b"[" * 30_000 + b"]" * 30_000
DEEP_OBJECTS = b'{"seats":' + b'{"a":' * 10_000 + b"1" + b"}" * 10_000 + b"}"
REPEATED = [*DECK[:39], DECK[0]]
ID_PATHS = {
    "a NUL byte": "%00",
    "the id and a NUL byte": f"{MID}%00",
    "a very long id": "A" * 10_000,
    "unicode": "%C3%A9t%C3%A9",
    "fullwidth letters": "%EF%BC%A1" * 22,
    "a dot-dot": "..%2F..%2Fetc",
    "one character short": "A" * 21,
    "a space": "%20" * 22,
}
ID_ROUTES = {
    "view": ("GET", "/v1/matches/{}"),
    "events": ("GET", "/v1/matches/{}/events"),
    "stream": ("GET", "/v1/matches/{}/events/stream"),
    "scores": ("GET", "/v1/matches/{}/scores"),
    "hint": ("GET", "/v1/matches/{}/hint"),
    "move": ("POST", "/v1/matches/{}/moves"),
    "join": ("POST", "/v1/matches/{}/seats/0/join"),
    "rematch": ("POST", "/v1/matches/{}/rematch"),
    "record": ("GET", "/v1/matches/{}/record"),
}

TABLE: list[Bad] = [
    # -- bodies of create ------------------------------------------------------------------
    _new("create: oversized body", OVERSIZED, 413, "payload-too-large"),
    _new("create: deep arrays", DEEP_ARRAYS),
    _new("create: deep objects", DEEP_OBJECTS),
    _new("create: unknown field", _create(extra=1)),
    _new(
        "create: a key given twice",
        b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 1, "seed": 2}',
        problem="ambiguous-request",
    ),
    _new(
        "create: a key given twice in a seat",
        b'{"seats": [{"kind": "human", "kind": "ai"}, {"kind": "human"}]}',
        problem="ambiguous-request",
    ),
    _new("create: unknown field in rules", _create(rules={"speed": 2})),
    _new(
        "create: a name on an AI seat",
        _json({"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy", "name": "x"}]}),
    ),
    _new("create: a name on an open seat", _json({"seats": [{"kind": "open", "name": "x"}] * 2})),
    _new("create: a name with a NUL", _json({"seats": [{"kind": "human", "name": "A\u0000"}] * 2})),
    _new(
        "create: a name ending in a newline",
        _json({"seats": [{"kind": "human", "name": "A\n"}] * 2}),
    ),
    _new(
        "create: a name with a C1 control",
        _json({"seats": [{"kind": "human", "name": "A\u0085"}] * 2}),
    ),
    _new("create: a name of spaces", _json({"seats": [{"kind": "human", "name": "   "}] * 2})),
    _new("create: a name of 33", _json({"seats": [{"kind": "human", "name": "x" * 33}] * 2})),
    _new("create: a null name", _json({"seats": [{"kind": "human", "name": None}] * 2})),
    _new("create: a name as a number", _json({"seats": [{"kind": "human", "name": 7}] * 2})),
    _new("create: reveal_ai_hands as 1", _create(rules={"reveal_ai_hands": 1})),
    _new(
        "create: level on a human seat", _json({"seats": [{"kind": "human", "level": "easy"}] * 2})
    ),
    _new("create: target as a string", _create(rules={"target": "11"})),
    _new("create: target with a fraction", _create(rules={"target": 11.5})),
    _new("create: seed true", _create(seed=True)),
    _new("create: first_dealer true", _create(first_dealer=True)),
    _new("create: hand_size as a string", _create(rules={"hand_size": "3"})),
    _new("create: king_of_diamonds as 1", _create(rules={"king_of_diamonds": 1})),
    _new("create: seats as an object", _json({"seats": {"0": {"kind": "human"}}})),
    _new("create: rules as an array", _create(rules=[])),
    _new("create: seed 2^64", _create(seed=2**64)),
    _new("create: seed 2^63", _create(seed=2**63)),
    _new("create: target 10^30", _create(rules={"target": 10**30})),
    _new("create: first_dealer 10^20", _create(first_dealer=10**20)),
    _new("create: seed 1e400", b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 1e400}'),
    _new("create: seed NaN", b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": NaN}'),
    _new(
        "create: a 5000-digit seed",
        b'{"seats": [{"kind": "human"}, {"kind": "human"}], "seed": ' + b"9" * 5000 + b"}",
    ),
    _new("create: deck card 7\u2666", _create(decks=[["7\u2666", *DECK[1:]]])),
    _new("create: deck card in fullwidth", _create(decks=[["\uff17D", *DECK[1:]]])),
    _new("create: deck card with a NUL", _create(decks=[["7D\u0000", *DECK[1:]]])),
    _new("create: deck card in lowercase", _create(decks=[[DECK[0].lower(), *DECK[1:]]])),
    _new("create: deck card 10D", _create(decks=[["10D", *DECK[1:]]])),
    _new("create: deck with a repeat", _create(decks=[REPEATED]), 422, "invalid-setup"),
    _new("create: deck of 39 cards", _create(decks=[DECK[:39]]), 422, "invalid-setup"),
    _new("create: deck of 41 cards", _create(decks=[[*DECK, DECK[0]]]), 422, "invalid-setup"),
    _new("create: empty deck", _create(decks=[[]]), 422, "invalid-setup"),
    _new("create: three seats", _json({"seats": [{"kind": "human"}] * 3}), 422, "invalid-setup"),
    _new("create: invalid UTF-8", b'{"seats": [{"kind": "hum\xffan"}, {"kind": "human"}]}'),
    _new("create: a lone surrogate", b'{"seats": [{"kind": "\\ud800"}, {"kind": "human"}]}'),
    _new("create: empty body", b""),
    _new("create: null", b"null"),
    _new("create: an array", b"[]"),
    _new("create: a number", b"7"),
    _new("create: not JSON", b"seats=2"),
    _new(
        "create: text/plain",
        _create(),
        415,
        "unsupported-media-type",
        headers={"Content-Type": "text/plain"},
    ),
    _new(
        "create: a form",
        _create(),
        415,
        "unsupported-media-type",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    ),
    _new("create: empty Idempotency-Key", _create(), headers={"Idempotency-Key": ""}),
    _new("create: Idempotency-Key of 256", _create(), headers={"Idempotency-Key": "k" * 256}),
    # It fetches the seat tokens again: too short to be a secret.
    _new("create: Idempotency-Key of 15", _create(), headers={"Idempotency-Key": "k" * 15}),
    # HTTP would strip the space: the key would arrive 15 characters long.
    _new(
        "create: Idempotency-Key ending in a space",
        _create(),
        headers={"Idempotency-Key": "k" * 15 + " "},
    ),
    _new(
        "create: Idempotency-Key in UTF-8",
        _create(),
        headers={"Idempotency-Key": "cl\u00e9".encode()},
    ),
    _new("create: Idempotency-Key with a tab", _create(), headers={"Idempotency-Key": "a\tb"}),
    _new(
        "create: unknown token",
        _create(),
        401,
        "invalid-token",
        headers={"Authorization": "Bearer nope"},
    ),
    # -- bodies and headers of a move ------------------------------------------------------
    _move("move: oversized body", OVERSIZED, 413, "payload-too-large"),
    _move("move: deep arrays", DEEP_ARRAYS),
    _move("move: unknown field", _json({"card": "7C", "capture": ["2C", "5H"], "x": 1})),
    _move("move: card given twice", b'{"card": "ZZ", "card": "5S"}', problem="ambiguous-request"),
    _move(
        "move: capture given twice",
        b'{"card": "7C", "capture": ["2C", "5H"], "capture": ["3D", "4S"]}',
        problem="ambiguous-request",
    ),
    _move("move: card as a number", _json({"card": 7})),
    _move("move: card true", _json({"card": True})),
    _move("move: capture as a string", _json({"card": "7C", "capture": "2C"})),
    _move("move: capture with a number", _json({"card": "7C", "capture": [2, 5]})),
    _move("move: capture as an object", _json({"card": "7C", "capture": {"2C": 1}})),
    _move("move: card 7\u2663", _json({"card": "7\u2663", "capture": ["2C", "5H"]})),
    _move("move: card in fullwidth", _json({"card": "\uff17C", "capture": ["2C", "5H"]})),
    _move("move: card with a NUL", _json({"card": "7C\u0000", "capture": ["2C", "5H"]})),
    _move("move: card with a space", _json({"card": "7C ", "capture": ["2C", "5H"]})),
    _move("move: card in lowercase", _json({"card": "7c", "capture": ["2C", "5H"]})),
    _move("move: capture in lowercase", _json({"card": "7C", "capture": ["2c", "5h"]})),
    _move("move: capture in unicode", _json({"card": "7C", "capture": ["2\u2663", "5H"]})),
    _move(
        "move: a card listed twice",
        _json({"card": "7C", "capture": ["2C", "2C"]}),
        422,
        "illegal-move",
    ),
    _move(
        "move: a card listed twice with the right ones",
        _json({"card": "7C", "capture": ["2C", "5H", "2C"]}),
        422,
        "illegal-move",
    ),
    _move(
        "move: the played card in capture",
        _json({"card": "7C", "capture": ["7C"]}),
        422,
        "illegal-move",
    ),
    _move("move: a card not in hand", _json({"card": "AC", "capture": []}), 422, "illegal-move"),
    _move("move: a card that must take", _json({"card": "5S", "capture": []}), 422, "illegal-move"),
    _move("move: capture left out with two choices", _json({"card": "7C"}), 422, "illegal-move"),
    _move("move: If-Match unquoted", _json({"card": "5S"}), headers={"If-Match": "0"}),
    _move("move: If-Match not a number", _json({"card": "5S"}), headers={"If-Match": '"zero"'}),
    _move("move: If-Match W/ unquoted", _json({"card": "5S"}), headers={"If-Match": "W/0"}),
    _move("move: If-Match a list", _json({"card": "5S"}), headers={"If-Match": '"0", "1"'}),
    # An empty list names no version (RFC 9110): the request expects none the match has.
    _move(
        "move: If-Match empty",
        _json({"card": "5S"}),
        412,
        "stale-version",
        headers={"If-Match": ""},
    ),
    _move(
        "move: If-Match of 19 digits",
        _json({"card": "5S"}),
        headers={"If-Match": '"' + "9" * 19 + '"'},
    ),
    _move(
        "move: If-Match stale",
        _json({"card": "5S"}),
        412,
        "stale-version",
        headers={"If-Match": '"7"'},
    ),
    _move("move: empty Idempotency-Key", _json({"card": "5S"}), headers={"Idempotency-Key": ""}),
    _move(
        "move: Idempotency-Key in UTF-8",
        _json({"card": "5S"}),
        headers={"Idempotency-Key": "\u00e9".encode()},
    ),
    _move(
        "move: Idempotency-Key with a NUL",
        _json({"card": "5S"}),
        headers={"Idempotency-Key": "a\x00b"},
    ),
    _move("move: invalid UTF-8", b'{"card": "5\xffS"}'),
    _move(
        "move: text/plain",
        _json({"card": "5S"}),
        415,
        "unsupported-media-type",
        headers={"Content-Type": "text/plain"},
    ),
    _move("move: empty body", b""),
    _move("move: null", b"null"),
    _move("move: an array", b'["5S"]'),
    _move("move: a string", b'"5S"'),
    Bad(
        "move: no token",
        "POST",
        f"/v1/matches/{MID}/moves",
        401,
        "invalid-token",
        _json({"card": "5S"}),
        JSON,
    ),
    Bad(
        "move: Basic auth",
        "POST",
        f"/v1/matches/{MID}/moves",
        401,
        "invalid-token",
        _json({"card": "5S"}),
        {**JSON, "Authorization": "Basic c2VhdDox"},
    ),
    Bad(
        "move: empty bearer",
        "POST",
        f"/v1/matches/{MID}/moves",
        401,
        "invalid-token",
        _json({"card": "5S"}),
        {**JSON, "Authorization": "Bearer "},
    ),
    Bad(
        "move: a NUL token",
        "POST",
        f"/v1/matches/{MID}/moves",
        401,
        "invalid-token",
        _json({"card": "5S"}),
        {**JSON, "Authorization": "Bearer \x00"},
    ),
    Bad(
        "move: a ?token= besides the header",
        "POST",
        f"/v1/matches/{MID}/moves?token=x",
        400,
        "ambiguous-request",
        _json({"card": "5S"}),
        JSON,
        MOVER,
    ),
    Bad(
        "move: not your turn",
        "POST",
        f"/v1/matches/{MID}/moves",
        409,
        "not-your-turn",
        _json({"card": "AC"}),
        JSON,
        0,
    ),
    # -- join ------------------------------------------------------------------------------
    _join("join: a body with members", _json({"seat": 1}), headers=JSON),
    _join("join: a name and another member", _json({"name": "Bo", "seat": 1}), headers=JSON),
    _join("join: a name with a tab", _json({"name": "B\to"}), headers=JSON),
    _join("join: a name with a NUL", _json({"name": "\u0000"}), headers=JSON),
    _join("join: a null name", _json({"name": None}), headers=JSON),
    _join("join: an empty name", _json({"name": ""}), headers=JSON),
    _join(
        "join: a foreign token on a held seat",
        None,
        409,
        "seat-not-open",
        headers={"Authorization": "Bearer nope"},
    ),
    _join("join: null", b"null", headers=JSON),
    _join("join: an array", b"[]", headers=JSON),
    _join("join: invalid UTF-8", b'{"\xff": 1}', headers=JSON),
    _join(
        "join: text/plain",
        b"{}",
        415,
        "unsupported-media-type",
        headers={"Content-Type": "text/plain"},
    ),
    _join("join: bad Idempotency-Key", None, headers={"Idempotency-Key": ""}),
    _join("join: Idempotency-Key of 15", None, headers={"Idempotency-Key": "k" * 15}),
    _join("join: a seat taken", None, 409, "seat-not-open"),
    Bad("join: seat abc", "POST", f"/v1/matches/{MID}/seats/abc/join", 404, "not-found"),
    Bad("join: seat -1", "POST", f"/v1/matches/{MID}/seats/-1/join", 404, "no-such-seat"),
    Bad("join: seat 10^25", "POST", f"/v1/matches/{MID}/seats/{10**25}/join", 404, "no-such-seat"),
    # -- query parameters and read headers -------------------------------------------------
    _get("events: after=-1", f"/v1/matches/{MID}/events?after=-1"),
    _get("events: after=abc", f"/v1/matches/{MID}/events?after=abc"),
    _get("events: after=1.5", f"/v1/matches/{MID}/events?after=1.5"),
    _get("events: after empty", f"/v1/matches/{MID}/events?after="),
    _get("events: after=1e3", f"/v1/matches/{MID}/events?after=1e3"),
    _get("events: after=1.0", f"/v1/matches/{MID}/events?after=1.0"),
    _get("events: after=2 then 1e1", f"/v1/matches/{MID}/events?after=2&after=1e1"),
    _get("events: after past the stored seqs", f"/v1/matches/{MID}/events?after=9999999999"),
    _get("events: after=10^25", f"/v1/matches/{MID}/events?after={10**25}"),
    _get("events: wait=31", f"/v1/matches/{MID}/events?wait=31"),
    _get("events: wait=-1", f"/v1/matches/{MID}/events?wait=-1"),
    _get("events: wait=abc", f"/v1/matches/{MID}/events?wait=abc"),
    _get("events: wait=nan", f"/v1/matches/{MID}/events?wait=nan"),
    _get("events: wait=inf", f"/v1/matches/{MID}/events?wait=inf"),
    _get("events: wait=-inf", f"/v1/matches/{MID}/events?wait=-inf"),
    _get("events: unknown token", f"/v1/matches/{MID}/events?token=nope", 401, "invalid-token"),
    _get(
        "events: two ?token=",
        f"/v1/matches/{MID}/events?token=a&token=b",
        400,
        "ambiguous-request",
    ),
    _get("view: ?token=", f"/v1/matches/{MID}?token=x", 400, "ambiguous-request", seat=MOVER),
    _get("scores: ?token=", f"/v1/matches/{MID}/scores?token=x", 400, "ambiguous-request"),
    _get("stream: after=-1", f"/v1/matches/{MID}/events/stream?after=-1"),
    _get("stream: after=10^25", f"/v1/matches/{MID}/events/stream?after={10**25}"),
    _get("stream: after=1e1", f"/v1/matches/{MID}/events/stream?after=1e1"),
    _get("stream: after=1.0", f"/v1/matches/{MID}/events/stream?after=1.0"),
    _get(
        "stream: Last-Event-ID abc",
        f"/v1/matches/{MID}/events/stream",
        headers={"Last-Event-ID": "abc"},
    ),
    _get(
        "stream: Last-Event-ID -1",
        f"/v1/matches/{MID}/events/stream",
        headers={"Last-Event-ID": "-1"},
    ),
    _get(
        "stream: Last-Event-ID 10 digits",
        f"/v1/matches/{MID}/events/stream",
        headers={"Last-Event-ID": "9" * 10},
    ),
    _get("lobby: limit=0", "/v1/matches?limit=0"),
    _get("lobby: limit=101", "/v1/matches?limit=101"),
    _get("lobby: limit=abc", "/v1/matches?limit=abc"),
    _get("lobby: limit=1.0", "/v1/matches?limit=1.0"),
    _get("lobby: limit=1e1", "/v1/matches?limit=1e1"),
    _get("lobby: status=finished", "/v1/matches?status=finished"),
    _get("lobby: status twice, one bad", "/v1/matches?status=active&status=nope"),
    _get("lobby: cursor of punctuation", "/v1/matches?cursor=%21%21", 400, "invalid-cursor"),
    _get("lobby: cursor not base64 JSON", "/v1/matches?cursor=AAAA", 400, "invalid-cursor"),
    _get("lobby: cursor too long", "/v1/matches?cursor=" + "A" * 401, 400, "invalid-cursor"),
    _get(
        "lobby: cursor with a NUL id",
        "/v1/matches?cursor=" + _cursor([1.0, "a\u0000b"]),
        400,
        "invalid-cursor",
    ),
    _get(
        "lobby: cursor with an odd id",
        f"/v1/matches?cursor={_cursor([1.0, 'x'])}",
        400,
        "invalid-cursor",
    ),
    _get(
        "lobby: cursor with no number",
        f"/v1/matches?cursor={_cursor(['x', 'y'])}",
        400,
        "invalid-cursor",
    ),
    _get(
        "hint: unknown level",
        f"/v1/matches/{MID}/hint?level=godlike",
        400,
        "unknown-level",
        seat=MOVER,
    ),
    _get("hint: no token", f"/v1/matches/{MID}/hint", 401, "invalid-token"),
    _get("view: If-None-Match unquoted", f"/v1/matches/{MID}", headers={"If-None-Match": "0"}),
    _get(
        "view: If-None-Match a list without commas",
        f"/v1/matches/{MID}",
        headers={"If-None-Match": '"0" "1"'},
    ),
    _get(
        "view: If-None-Match of 19 digits",
        f"/v1/matches/{MID}",
        headers={"If-None-Match": '"' + "9" * 19 + '"'},
    ),
    _get("record: an active match", f"/v1/matches/{MID}/record", 409, "match-not-finished"),
    _get(
        "record: unknown token",
        f"/v1/matches/{MID}/record",
        401,
        "invalid-token",
        headers={"Authorization": "Bearer nope"},
    ),
    Bad(
        "rematch: an active match",
        "POST",
        f"/v1/matches/{MID}/rematch",
        409,
        "match-not-active",
        seat=0,
    ),
    Bad("rematch: no token", "POST", f"/v1/matches/{MID}/rematch", 401, "invalid-token"),
    Bad(
        "rematch: unknown token",
        "POST",
        f"/v1/matches/{MID}/rematch",
        401,
        "invalid-token",
        headers={"Authorization": "Bearer nope"},
    ),
    Bad(
        "rematch: a body with members",
        "POST",
        f"/v1/matches/{MID}/rematch",
        400,
        "validation-error",
        _json({"seat": 1}),
        JSON,
        0,
    ),
    Bad(
        "rematch: text/plain",
        "POST",
        f"/v1/matches/{MID}/rematch",
        415,
        "unsupported-media-type",
        b"{}",
        {"Content-Type": "text/plain"},
        0,
    ),
    Bad(
        "rematch: bad Idempotency-Key",
        "POST",
        f"/v1/matches/{MID}/rematch",
        400,
        "validation-error",
        None,
        {"Idempotency-Key": "a\tb"},
        0,
    ),
    *(
        Bad(f"{route}: id {what}", method, path.format(bad), 404, "not-found", headers=JSON)
        for route, (method, path) in ID_ROUTES.items()
        for what, bad in ID_PATHS.items()
    ),
]
# Inputs a database sees as they come, if the API lets them through.
REACHES_THE_DATABASE = [
    bad
    for bad in TABLE
    if any(s in bad.name for s in ("NUL", "10^25", "past the stored", "cursor with", "10 digits"))
]


async def _snapshot(api: InProcess, match_id: str, tokens: dict[int, str]) -> Any:
    """All a caller can learn of the match: each seat's view and events, the spectator's."""
    seen = []
    for token in [None, *tokens.values()]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        view = await api.client.get(f"/v1/matches/{match_id}", headers=headers)
        events = await api.client.get(f"/v1/matches/{match_id}/events", headers=headers)
        assert view.status_code == events.status_code == 200
        seen.append((view.json(), view.headers["etag"], events.json()))
    return seen


def _problems(bad: Bad, answer: Any) -> list[str]:
    wrong = []
    if answer.status_code != bad.status:
        wrong.append(f"status {answer.status_code}, not {bad.status}: {answer.text[:300]}")
    if answer.headers.get("content-type") != "application/problem+json":
        return [*wrong, f"content-type {answer.headers.get('content-type')}"]
    body = answer.json()
    if body.get("type") != PROBLEM + bad.problem:
        wrong.append(f"type {body.get('type')}, not {bad.problem}")
    if body.get("status") != answer.status_code or not body.get("title") or not body.get("detail"):
        wrong.append(f"not a complete problem: {body}")
    said = [str(body.get("detail")), *(str(p) for p in body.get("invalid_params", []))]
    if any(raw in words for raw in RAW for words in said):
        wrong.append(f"not in words: {body}")
    return wrong


async def run_table(api: InProcess, table: list[Bad], record: ReliabilityRecord) -> list[str]:
    """Each entry against the fixed match, which must be as it was after each: the next
    entry takes it as it is, and a fresh one only after an entry that changed it. What
    went wrong, per entry."""
    failures: list[str] = []
    match_id, tokens = await _fixed_match(api)
    before = await _snapshot(api, match_id, tokens)
    for bad in table:
        matches = await api.match_count()
        headers = dict(bad.headers)
        if bad.seat is not None:
            headers["Authorization"] = f"Bearer {tokens[bad.seat]}"
        answer = await api.client.request(
            bad.method, bad.path.replace(MID, match_id), content=bad.body, headers=headers
        )
        record.requests += 1
        wrong = _problems(bad, answer)
        if await api.match_count() != matches:
            wrong.append("a match was created")
        if await _snapshot(api, match_id, tokens) != before:
            wrong.append("the match changed")
            match_id, tokens = await _fixed_match(api)
            before = await _snapshot(api, match_id, tokens)
        failures.extend(f"{bad.name}: {w}" for w in wrong)
    record.cases += len(table)
    record.failures = len(failures)
    return failures


async def _fixed_match(api: InProcess) -> tuple[str, dict[int, str]]:
    created = await api.client.post("/v1/matches", json=FIXED_MATCH)
    assert created.status_code == 201, created.text
    tokens = {t["seat"]: t["token"] for t in created.json()["tokens"]}
    return created.json()["match"]["id"], tokens


def test_the_table_is_what_it_says() -> None:
    names = [bad.name for bad in TABLE]
    assert len(names) == len(set(names))
    assert len(TABLE) > 150
    assert len(REACHES_THE_DATABASE) >= 15


async def test_hostile_input_over_the_fakes(reliability_log: ReliabilityRecord) -> None:
    reliability_log.check = "bad input (memory)"
    async with serve(None) as api:
        failures = await run_table(api, TABLE, reliability_log)
    assert not failures, "\n".join(failures)


async def test_hostile_input_over_sqlite(
    sqlite_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "bad input (SQLite)"
    async with serve(sqlite_url) as api:
        failures = await run_table(api, TABLE, reliability_log)
    assert not failures, "\n".join(failures)


@pytest.mark.postgres
async def test_input_that_reaches_the_database_over_postgres(
    postgres_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "bad input (Postgres)"
    reliability_log.notes = "NUL bytes, numbers past the stored ranges"
    async with serve(postgres_url) as api:
        failures = await run_table(api, REACHES_THE_DATABASE, reliability_log)
    assert not failures, "\n".join(failures)
