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
from api.schemas import CreateMatch, JoinRequest, MoveRequest, Problem

_REF = "#/components/schemas/{name}"
_SSE = (
    "One message per event: `id:` its seq, `event:` its type, `data:` the event as JSON "
    "(the Event schemas); comment lines keep a quiet stream alive"
)
_STATUS_TEXT = {
    400: "The request is malformed (validation-error and kin)",
    401: "Missing or invalid seat token (invalid-token)",
    404: "No such match or seat",
    409: "Conflicts with the match's state",
    412: "If-Match names another version (stale-version)",
    413: "The body is too large (payload-too-large)",
    422: "Well-formed but refused (illegal-move, invalid-setup, idempotency-key-reused)",
    429: "Too many requests (rate-limited); see Retry-After",
    503: "The database does not answer (database-unavailable); see Retry-After",
}
_BODIES: dict[str, tuple[type[msgspec.Struct], bool]] = {
    "createMatch": (CreateMatch, True),
    "playMove": (MoveRequest, True),
    "joinSeat": (JoinRequest, False),
}
# Where to go from a created match: its id is in the answer's body.
_MATCH_ID = "$response.body#/match/id"
_CREATE_LINKS = {
    "getMatch": {"operationId": "getMatch", "parameters": {"match_id": _MATCH_ID}},
    "playMove": {"operationId": "playMove", "parameters": {"match_id": _MATCH_ID}},
    "listEvents": {"operationId": "listEvents", "parameters": {"match_id": _MATCH_ID}},
    "streamEvents": {"operationId": "streamEvents", "parameters": {"match_id": _MATCH_ID}},
    "getScores": {"operationId": "getScores", "parameters": {"match_id": _MATCH_ID}},
    "getHint": {"operationId": "getHint", "parameters": {"match_id": _MATCH_ID}},
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
        operations[operation_id]["requestBody"] = {
            "required": required,
            "content": {"application/json": {"schema": ref}},
        }
    operations["createMatch"]["responses"]["201"]["links"] = _CREATE_LINKS
    operations["streamEvents"]["responses"]["200"]["content"] = {
        "text/event-stream": {"schema": {"type": "string", "description": _SSE}}
    }
    for operation in operations.values():
        _problem_answers(operation)
    _discriminate(components)
    return doc


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
