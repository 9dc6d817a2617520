"""The published OpenAPI document: Litestar's, completed with what it cannot infer.

Handlers read their bodies themselves (the check order of API.md puts 404 and 401 before
a malformed body), so request bodies are described here, from the same msgspec Structs
that decode them: the spec then states exactly what the server enforces.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec

from api.errors import PROBLEM_JSON
from api.schemas import CreateMatch, EmptyBody, JoinRequest, MoveRequest, Problem

_REF = "#/components/schemas/{name}"
_SSE = (
    "One message per event: `id:` its seq, `event:` its type, `data:` the event as JSON "
    "(the Event schemas); the first also carries `retry:`; comment lines keep a quiet "
    "stream alive"
)
_STATUS_TEXT = {
    400: "The request is malformed (validation-error and kin)",
    401: "Missing or invalid seat token (invalid-token)",
    404: "No such match or seat",
    409: "Conflicts with the match's state (match-not-active, match-not-finished, "
    "seat-not-open, not-your-turn, idempotency-key-in-flight)",
    412: "If-Match names another version (stale-version)",
    413: "The body is too large (payload-too-large)",
    415: "The body is not sent as application/json (unsupported-media-type)",
    422: "Well-formed but refused (illegal-move, invalid-setup, idempotency-key-reused)",
    429: "Too many requests (rate-limited); see Retry-After",
    503: "The database does not answer (database-unavailable); see Retry-After",
}
_BODIES: dict[str, tuple[type[msgspec.Struct], bool]] = {
    "createMatch": (CreateMatch, True),
    "playMove": (MoveRequest, True),
    "joinSeat": (JoinRequest, False),
    "rematchMatch": (EmptyBody, False),
}
_HUMAN = {"kind": "human"}
_BODY_EXAMPLES: dict[str, dict[str, Any]] = {
    "createMatch": {
        "againstTheAi": {
            "summary": "One player against the expert AI, default rules",
            "value": {"seats": [_HUMAN, {"kind": "ai", "level": "expert"}]},
        },
        "training": {
            "summary": "A named player against the easy AI, its cards shown (training)",
            "value": {
                "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
                "rules": {"reveal_ai_hands": True},
            },
        },
        "twoPlayers": {
            "summary": "Two players at one table, a chosen shuffle and dealer",
            "value": {"seats": [_HUMAN, _HUMAN], "seed": 12345, "first_dealer": 0},
        },
        "fourPlayers": {
            "summary": "Partners, one seat left open for someone to join",
            "value": {
                "seats": [_HUMAN, {"kind": "ai", "level": "easy"}, _HUMAN, {"kind": "open"}],
                "rules": {"target": 21, "diamond_sequence": True},
            },
        },
    },
    "playMove": {
        "takeTwo": {
            "summary": "The 7 of diamonds takes the 3 of clubs and the 4 of hearts",
            "value": {"card": "7D", "capture": ["3C", "4H"]},
        },
    },
}
# Links, so a client (and a stateful test) can go from an answer to the next request.
# The create answer holds the match's id and the human seats' tokens; a request that
# sent a token (the routes that require one declare it) passes it on.
_MATCH_ID = "$response.body#/match/id"
_VIEW_ID = "$response.body#/id"
_SAME_TOKEN = "$request.header.Authorization"


def _bearer(pointer: str) -> str:
    return f"Bearer {{$response.body#{pointer}}}"


_CREATE_LINKS = {
    "getMatch": {"operationId": "getMatch", "parameters": {"match_id": _MATCH_ID}},
    "getMatchAsFirstSeat": {
        "operationId": "getMatch",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
    },
    "getHint": {
        "operationId": "getHint",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
    },
    "getHintForSecondSeat": {
        "operationId": "getHint",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/1/token")},
    },
    "playMove": {
        "operationId": "playMove",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
    },
    "listEvents": {
        "operationId": "listEvents",
        "parameters": {"match_id": _MATCH_ID, "token": "$response.body#/tokens/0/token"},
    },
    "joinSeat": {
        "operationId": "joinSeat",
        "parameters": {"match_id": _MATCH_ID, "seat": "$response.body#/match/seats/1/seat"},
    },
    "rematchMatch": {
        "operationId": "rematchMatch",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
    },
    "getRecord": {"operationId": "getRecord", "parameters": {"match_id": _MATCH_ID}},
}
# A hint is a legal move of the seat to play: playing it is how a bot (or a stateful
# test) goes on from a hint, with the token the hint was asked with.
_HINT_LINKS = {
    "playMove": {
        "operationId": "playMove",
        "description": "Play the move hinted",
        "parameters": {"match_id": "$request.path.match_id", "header.Authorization": _SAME_TOKEN},
        "requestBody": {"card": "$response.body#/card", "capture": "$response.body#/capture"},
    },
}
_MOVE_LINKS = {
    "getMatch": {
        "operationId": "getMatch",
        "parameters": {"match_id": _VIEW_ID, "header.Authorization": _SAME_TOKEN},
    },
    "getHint": {
        "operationId": "getHint",
        "description": "The seat's next hint, once it is its turn again",
        "parameters": {"match_id": _VIEW_ID, "header.Authorization": _SAME_TOKEN},
    },
    "listEvents": {
        "operationId": "listEvents",
        "parameters": {"match_id": _VIEW_ID, "header.Authorization": _SAME_TOKEN},
    },
}
_VIEW_LINKS = {
    "listEvents": {"operationId": "listEvents", "parameters": {"match_id": _VIEW_ID}},
    "streamEvents": {"operationId": "streamEvents", "parameters": {"match_id": _VIEW_ID}},
    "getScores": {"operationId": "getScores", "parameters": {"match_id": _VIEW_ID}},
    "getRecord": {"operationId": "getRecord", "parameters": {"match_id": _VIEW_ID}},
}
# A rematch's answer holds its id and the caller's new token; its reserved seats wait for
# the other players' old tokens.
_REMATCH_LINKS = {
    "getMatch": {
        "operationId": "getMatch",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/token")},
    },
    "playMove": {
        "operationId": "playMove",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/token")},
    },
}
_JOIN_LINKS = {
    "getMatch": {
        "operationId": "getMatch",
        "parameters": {
            "match_id": "$request.path.match_id",
            "header.Authorization": _bearer("/token"),
        },
    },
    "getHint": {
        "operationId": "getHint",
        "parameters": {
            "match_id": "$request.path.match_id",
            "header.Authorization": _bearer("/token"),
        },
    },
}
_LOBBY_LINKS = {
    "getMatch": {
        "operationId": "getMatch",
        "parameters": {"match_id": "$response.body#/matches/0/id"},
    },
    "joinSeat": {
        "operationId": "joinSeat",
        "parameters": {
            "match_id": "$response.body#/matches/0/id",
            "seat": "$response.body#/matches/0/seats/1/seat",
        },
    },
    "listMatches": {
        "operationId": "listMatches",
        "parameters": {"cursor": "$response.body#/next_cursor"},
    },
}
_LINKS = {
    ("createMatch", "201"): _CREATE_LINKS,
    ("getHint", "200"): _HINT_LINKS,
    ("playMove", "200"): _MOVE_LINKS,
    ("getMatch", "200"): _VIEW_LINKS,
    ("rematchMatch", "201"): _REMATCH_LINKS,
    ("rematchMatch", "200"): _REMATCH_LINKS,
    ("joinSeat", "200"): _JOIN_LINKS,
    ("listMatches", "200"): _LOBBY_LINKS,
}


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """The error answers of an operation, documented as problem+json."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=_STATUS_TEXT[status],
            generate_examples=False,
        )
        for status in statuses
    }


def complete(schema: dict[str, Any]) -> dict[str, Any]:
    """Litestar's document with request bodies and links added (a new dict)."""
    doc = copy.deepcopy(schema)
    components: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    (refs, defs) = msgspec.json.schema_components(
        [body for body, _ in _BODIES.values()], ref_template=_REF
    )
    components.update(defs)
    operations = {
        op["operationId"]: op
        for item in doc.get("paths", {}).values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    for (operation_id, (_, required)), ref in zip(_BODIES.items(), refs, strict=True):
        media: dict[str, Any] = {"schema": ref}
        if operation_id in _BODY_EXAMPLES:
            media["examples"] = _BODY_EXAMPLES[operation_id]
        operations[operation_id]["requestBody"] = {
            "required": required,
            "content": {"application/json": media},
        }
    for (operation_id, status), links in _LINKS.items():
        operations[operation_id]["responses"][status]["links"] = links
    for operation in operations.values():
        _problem_answers(operation)
        _no_null_parameters(operation)
    _discriminate(components)
    operations["streamEvents"]["responses"]["200"]["content"] = {
        "text/event-stream": {"schema": _sse_message(components)}
    }
    return doc


def _sse_message(components: dict[str, Any]) -> dict[str, Any]:
    """One message of the stream, its data the same Event union the long-poll pages hold."""
    event = components["EventPage"]["properties"]["events"]["items"]
    return {
        "type": "object",
        "description": _SSE,
        "required": ["id", "event", "data"],
        "properties": {
            "id": {"type": "string", "pattern": "^[1-9][0-9]*$", "description": "The seq"},
            "event": {"enum": sorted(event["discriminator"]["mapping"])},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": event,
            },
            "retry": {"type": "integer", "minimum": 0},
        },
    }


def _no_null_parameters(operation: dict[str, Any]) -> None:
    """A header or query value is a string or absent: Litestar documents an optional
    ``str | None`` parameter as string-or-null, which no request can send."""
    for parameter in operation.get("parameters", []):
        schema = parameter.get("schema", {})
        options = [o for o in schema.get("oneOf", []) if o != {"type": "null"}]
        if len(options) == 1 and len(schema["oneOf"]) == 2:
            del schema["oneOf"]
            schema.update(options[0])


def _problem_answers(operation: dict[str, Any]) -> None:
    """Every error answer is problem+json (Litestar's own 400 is documented as JSON) and
    every documented header has a schema."""
    for status, response in operation.get("responses", {}).items():
        if int(status) >= 400:
            response["content"] = {PROBLEM_JSON: {"schema": {"$ref": _REF.format(name="Problem")}}}
        for header in response.get("headers", {}).values():
            header.setdefault("schema", {"type": "string"})


def _discriminate(components: dict[str, Any]) -> None:
    """Name the tag of the event unions, which Litestar leaves as a bare oneOf."""

    def tag_of(ref: object) -> str | None:
        if not isinstance(ref, str) or not ref.startswith("#/components/schemas/"):
            return None
        target = components.get(ref.rsplit("/", 1)[1], {})
        const = target.get("properties", {}).get("type", {}).get("const")
        return const if isinstance(const, str) else None

    def walk(node: object) -> None:
        if isinstance(node, dict):
            options = node.get("oneOf")
            if isinstance(options, list) and "discriminator" not in node:
                tags = [tag_of(o.get("$ref")) if isinstance(o, dict) else None for o in options]
                if tags and all(tags):
                    node["discriminator"] = {
                        "propertyName": "type",
                        "mapping": {t: o["$ref"] for t, o in zip(tags, options, strict=True)},
                    }
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(components)
