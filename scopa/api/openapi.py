"""The published OpenAPI document: Litestar's, completed with what it cannot infer.

Handlers read their bodies themselves (the check order of docs/api.md puts 404 and 401 before
a malformed body), so request bodies are described here, from the same msgspec Structs
that decode them: the spec then states exactly what the server enforces.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec
from litestar.datastructures import ResponseHeader
from litestar.openapi.datastructures import ResponseSpec

from scopa.api import examples
from scopa.api.errors import PROBLEM_JSON
from scopa.api.schemas import (
    ChallengeRequest,
    CreateMatch,
    JoinRequest,
    MoveRequest,
    NewToken,
    NoOptions,
    Problem,
    RegisterPlayer,
)
from scopa.domain.ai import LEVELS

_REF = "#/components/schemas/{name}"
_SSE = (
    "One message per event: `id:` its seq, `event:` its type, `data:` the event as JSON "
    "(the Event schemas); the first also carries `retry:`; comment lines keep a quiet "
    "stream alive. While the database does not answer, the answer is a lone `retry:` line "
    "and the end, so that an EventSource comes back (it gives up for good on a 503)"
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
# The statuses whose answers always say when to come back.
_RETRY_AFTER = {
    "429": "Seconds until the request may be let through: the end of the window of a "
    'rate, or (at most 10) a hint for an "at once" quota',
}
# Sent on every answer of a limited route (429s included), one list member per limit on.
RATE_LIMIT_HEADERS = [
    ResponseHeader(
        name="RateLimit-Policy",
        description="The limits of this route, as the IETF ratelimit-headers draft writes "
        'them: `"create";q=300;w=60` is 300 requests per 60-second window',
        documentation_only=True,
    ),
    ResponseHeader(
        name="RateLimit",
        description='Where the client stands under each: `"create";r=299;t=60` is 299 '
        "requests left, the window starting again in 60 s",
        documentation_only=True,
    ),
]
_BODIES: dict[str, tuple[type[msgspec.Struct], bool]] = {
    "createMatch": (CreateMatch, True),
    "playMove": (MoveRequest, True),
    "joinSeat": (JoinRequest, False),
    "resignMatch": (NoOptions, False),
    "abortMatch": (NoOptions, False),
    "rematchMatch": (NoOptions, False),
    "registerPlayer": (RegisterPlayer, True),
    "createToken": (NewToken, False),
    "createChallenge": (ChallengeRequest, True),
    "acceptChallenge": (NoOptions, False),
    "declineChallenge": (NoOptions, False),
}
# The tags of the unions, described once for every schema they tell apart.
_TAGS = {
    "type": "What happened; it names the event's schema",
    "kind": "Who plays the seat; it names the seat's schema",
}
# Closed sets of strings whose Struct fields are typed plain ``str``.
_ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("SeatView", "level"): LEVELS,
    ("Hint", "level"): LEVELS,
    # What domain.scoring.tally can list.
    ("TeamTally", "clinched"): ("cards", "diamonds", "settebello", "king_of_diamonds", "primiera"),
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
    "resignMatch": {
        "operationId": "resignMatch",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
    },
    "abortMatch": {
        "operationId": "abortMatch",
        "parameters": {"match_id": _MATCH_ID, "header.Authorization": _bearer("/tokens/0/token")},
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
    "getReview": {
        "operationId": "getReview",
        "description": "The coach's review of the first seat, once the match is finished",
        "parameters": {"match_id": _VIEW_ID, "seat": "$response.body#/seats/0/seat"},
    },
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
# A new player's token, and the routes it opens.
_PLAYER_TOKEN = _bearer("/token/token")
_REGISTER_LINKS = {
    "getPlayer": {
        "operationId": "getPlayer",
        "parameters": {"handle": "$response.body#/player/handle"},
    },
    "getMe": {"operationId": "getMe", "parameters": {"header.Authorization": _PLAYER_TOKEN}},
    "getRatingHistory": {
        "operationId": "getRatingHistory",
        "parameters": {"handle": "$response.body#/player/handle", "format": "2p-11"},
    },
    "listMyMatches": {
        "operationId": "listMyMatches",
        "parameters": {"header.Authorization": _PLAYER_TOKEN},
    },
    "createToken": {
        "operationId": "createToken",
        "parameters": {"header.Authorization": _PLAYER_TOKEN},
    },
    "createChallenge": {
        "operationId": "createChallenge",
        "parameters": {"header.Authorization": _PLAYER_TOKEN},
        "requestBody": {"level": "easy"},
    },
    "listMyChallenges": {
        "operationId": "listMyChallenges",
        "parameters": {"header.Authorization": _PLAYER_TOKEN},
    },
    "streamMyChallenges": {
        "operationId": "streamMyChallenges",
        "parameters": {"header.Authorization": _PLAYER_TOKEN},
    },
    "deleteMe": {"operationId": "deleteMe", "parameters": {"header.Authorization": _PLAYER_TOKEN}},
    "revokeToken": {
        "operationId": "revokeToken",
        "parameters": {
            "header.Authorization": _PLAYER_TOKEN,
            "token_id": "$response.body#/token/id",
        },
    },
}
# A challenge made, and what its challenger may do with it.
_CHALLENGE_LINKS = {
    "getChallenge": {
        "operationId": "getChallenge",
        "parameters": {"challenge_id": "$response.body#/id"},
    },
    "cancelChallenge": {
        "operationId": "cancelChallenge",
        "parameters": {
            "challenge_id": "$response.body#/id",
            "header.Authorization": _SAME_TOKEN,
        },
    },
}
_LINKS = {
    ("registerPlayer", "201"): _REGISTER_LINKS,
    ("createChallenge", "201"): _CHALLENGE_LINKS,
    ("createMatch", "201"): _CREATE_LINKS,
    ("getHint", "200"): _HINT_LINKS,
    ("playMove", "200"): _MOVE_LINKS,
    ("getMatch", "200"): _VIEW_LINKS,
    ("rematchMatch", "201"): _REMATCH_LINKS,
    ("rematchMatch", "200"): _REMATCH_LINKS,
    ("joinSeat", "200"): _JOIN_LINKS,
    ("listMatches", "200"): _LOBBY_LINKS,
}


# The 503 of the routes that need the AI, where the API may run none.
AI_UNAVAILABLE_503 = (
    "The database does not answer (database-unavailable), or no AI process took the work "
    "in time (ai-unavailable: no worker runs, or all were busy); see Retry-After"
)


def problems(*statuses: int, text: Mapping[int, str] | None = None) -> dict[int, ResponseSpec]:
    """The error answers of an operation, documented as problem+json; ``text`` replaces
    the usual description of a status for this operation."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=(text or {}).get(status, _STATUS_TEXT[status]),
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
        media: dict[str, Any] = {"schema": ref, "examples": examples.BODIES[operation_id]}
        operations[operation_id]["requestBody"] = {
            "required": required,
            "content": {"application/json": media},
        }
    for (operation_id, status), links in _LINKS.items():
        operations[operation_id]["responses"][status]["links"] = links
    for (operation_id, status), answers in examples.RESPONSES.items():
        content = operations[operation_id]["responses"][status]["content"]
        content["application/json"]["examples"] = answers
    for operation in operations.values():
        _problem_answers(operation)
        _no_null_parameters(operation)
    _described_refs(components)
    _discriminate(components)
    _describe_tags(components)
    _enumerate(components)
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
            "event": {
                "enum": sorted(event["discriminator"]["mapping"]),
                "description": "The event's type",
            },
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": event,
                "description": "The event as JSON, as a page of listEvents holds it",
            },
            "retry": {
                "type": "integer",
                "minimum": 0,
                "description": "Milliseconds to wait before reconnecting (first message only)",
            },
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
        if status in _RETRY_AFTER:
            response.setdefault("headers", {})["Retry-After"] = {
                "description": _RETRY_AFTER[status],
                "schema": {"type": "integer", "minimum": 1},
            }
        for header in response.get("headers", {}).values():
            header.setdefault("schema", {"type": "string"})


def _described_refs(components: dict[str, Any]) -> None:
    """Litestar documents a described field of a Struct type as ``allOf: [$ref]`` and
    copies the field's description onto the shared component: put it beside the ``$ref``
    (as OpenAPI 3.1 allows, and as msgspec writes the request bodies) and off the target."""
    for schema in components.values():
        for field in schema.get("properties", {}).values():
            options = field.get("allOf")
            if not isinstance(options, list) or len(options) != 1 or list(options[0]) != ["$ref"]:
                continue
            ref = field.pop("allOf")[0]["$ref"]
            field["$ref"] = ref
            target = components[ref.rsplit("/", 1)[1]]
            if target.get("description") == field.get("description"):
                del target["description"]


def _describe_tags(components: dict[str, Any]) -> None:
    """Describe the tag of each schema of a tagged union, and give it its one value as an
    enum (Litestar writes a ``const``, which some clients do not read)."""
    for node in _nodes(components):
        discriminator = node.get("discriminator")
        if not isinstance(discriminator, dict):
            continue
        name = discriminator["propertyName"]
        for tag, ref in discriminator["mapping"].items():
            field = components[ref.rsplit("/", 1)[1]]["properties"][name]
            field.setdefault("description", _TAGS[name])
            field.setdefault("enum", [tag])


def _enumerate(components: dict[str, Any]) -> None:
    """The closed sets of ``_ENUMS``, on the string (or the items) a field holds."""
    for (schema, name), values in _ENUMS.items():
        field = components[schema]["properties"][name]
        target = field.get("items", field)
        options = [o for o in target.get("oneOf", [target]) if o.get("type") == "string"]
        (string,) = options
        string["enum"] = list(values)


def _nodes(node: object) -> list[dict[str, Any]]:
    """Every object in ``node``, depth first."""
    found: list[dict[str, Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


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
