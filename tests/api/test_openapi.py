"""The published OpenAPI document: what the server serves is what is committed, and it
states what the server enforces."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import msgspec
from jsonschema import Draft202012Validator

from scopa.api.schemas import CreateMatch, JoinRequest, MoveRequest
from scopa.cli import render_openapi
from scopa.contract.events import EventView
from scopa.contract.scoring import Points
from scopa.contract.views import MatchView
from scopa.domain.ai import LEVELS
from scopa.domain.match import SeatKind, Status
from scopa.domain.rules import ACE_SWEEP_MODES, CAPTURE_MODES
from scopa.service.answers import Created, Hint, Joined, Lobby, Scores
from scopa.service.feed import EventPage
from tests.api.support import Client

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


async def served(client: Client) -> Any:
    answer = await client.get("/schema/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def bare(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema without its description: what it enforces."""
    return {k: v for k, v in schema.items() if k != "description"}


def operations(doc: Any) -> dict[str, Any]:
    return {op["operationId"]: op for item in doc["paths"].values() for op in item.values()}


def object_schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema with properties in the document, components and inline ones alike
    (examples are values, not schemas)."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            yield where, node
        for key, value in node.items():
            if key not in ("examples", "example"):
                yield from object_schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from object_schemas(value, f"{where}[{i}]")


def validate(doc: Any, schema: dict[str, Any], value: Any) -> None:
    """``value`` against a schema of the document, its references resolved in it."""
    Draft202012Validator({**schema, "components": doc["components"]}).validate(value)


def enum_of(schemas: dict[str, Any], schema: str, name: str) -> list[str]:
    """The values a string field (or the items of an array field) may take."""
    field = schemas[schema]["properties"][name]
    field = field.get("items", field)
    (string,) = [o for o in field.get("oneOf", [field]) if o.get("type", "string") == "string"]
    return list(string["enum"])


async def test_the_committed_document_is_the_served_one(client: Client) -> None:
    assert json.loads(COMMITTED.read_text()) == await served(client), (
        "openapi/openapi.json is stale: run `scopa openapi`"
    )
    assert COMMITTED.read_text() == render_openapi()


# A path on this server: no scheme, no host (not even "//host").
LOCAL_PATH = r"/(?!/)\S*"


def linked(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)


async def test_swagger_ui_is_served_with_its_own_assets(client: Client) -> None:
    answer = await client.get("/schema/swagger")
    assert answer.status_code == 200
    assert "SwaggerUIBundle" in answer.text
    kinds = {}
    for url in linked(answer.text):
        # A browser with no way out must render it: nothing from another host.
        assert re.fullmatch(LOCAL_PATH, url), url
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.content, url
        kinds[url.rsplit(".", 1)[1]] = asset.headers["content-type"]
    assert kinds["js"].startswith("text/javascript")
    assert kinds["css"].startswith("text/css")
    assert kinds["png"] == "image/png"


async def test_the_landing_page_links_to_the_docs(client: Client) -> None:
    answer = await client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    links = linked(answer.text)
    assert {"/schema/swagger", "/schema/openapi.json"} <= set(links)
    for url in links:
        assert re.fullmatch(LOCAL_PATH, url), url
        assert (await client.get(url)).status_code == 200, url
    paths = (await served(client))["paths"]
    assert not [p for p in paths if not p.startswith(("/v1/", "/health", "/ready"))], paths


async def test_every_error_answer_is_problem_json(client: Client) -> None:
    doc = await served(client)
    assert doc["openapi"].startswith("3.1")
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert list(response["content"]) == ["application/problem+json"], (
                        method,
                        path,
                        status,
                    )


async def test_request_bodies_say_what_is_enforced(client: Client) -> None:
    doc = await served(client)
    schemas = doc["components"]["schemas"]
    for name in ("CreateMatch", "RulesRequest", "HumanSeat", "OpenSeat", "AiSeat", "MoveRequest"):
        assert schemas[name]["additionalProperties"] is False, name
    create = schemas["CreateMatch"]["properties"]
    assert create["seats"]["minItems"] == 2
    assert create["seats"]["maxItems"] == 4
    assert create["seats"]["items"]["discriminator"]["propertyName"] == "kind"
    assert bare(create["seed"]) == {"minimum": 0, "maximum": 2**63 - 1, "type": "integer"}
    assert create["first_dealer"]["minimum"] == 0
    assert create["decks"]["items"]["items"]["pattern"] == "^(A|[2-7]|J|Q|K)[CDHS]$"
    assert bare(schemas["RulesRequest"]["properties"]["target"]) == {
        "minimum": 1,
        "maximum": 100,
        "type": "integer",
    }
    moves = doc["paths"]["/v1/matches/{match_id}/moves"]["post"]
    assert moves["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/MoveRequest"
    }
    assert {p["name"] for p in moves["parameters"]} >= {"If-Match", "Idempotency-Key"}
    assert set(moves["responses"]) == {
        "200",
        "400",
        "401",
        "404",
        "409",
        "412",
        "413",
        "415",
        "422",
        "503",
    }


async def test_streams_links_and_parameters(client: Client) -> None:
    doc = await served(client)
    stream = doc["paths"]["/v1/matches/{match_id}/events/stream"]["get"]
    assert list(stream["responses"]["200"]["content"]) == ["text/event-stream"]
    created = doc["paths"]["/v1/matches"]["post"]["responses"]["201"]
    assert created["links"]["getMatch"]["parameters"] == {"match_id": "$response.body#/match/id"}
    assert created["headers"]["Location"]["schema"] == {"type": "string"}
    events = doc["paths"]["/v1/matches/{match_id}/events"]["get"]
    wait = next(p for p in events["parameters"] if p["name"] == "wait")
    assert wait["schema"]["maximum"] == 30
    page = doc["components"]["schemas"]["EventPage"]["properties"]["events"]["items"]
    assert page["discriminator"]["propertyName"] == "type"
    assert "seatToken" in doc["components"]["securitySchemes"]


async def test_every_operation_parameter_and_property_is_described(client: Client) -> None:
    doc = await served(client)
    missing = []
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            if not operation.get("description") or not operation.get("summary"):
                missing.append(where)
            missing += [
                f"{where} parameter {p['name']}"
                for p in operation.get("parameters", [])
                if not p.get("description")
            ]
    schemas = list(object_schemas(doc))
    assert len(schemas) > len(doc["components"]["schemas"]), "the stream's message is inline"
    for where, schema in schemas:
        missing += [
            f"{where}.{name}"
            for name, field in schema["properties"].items()
            if not field.get("description")
        ]
    assert not missing, missing


async def test_closed_sets_of_strings_are_enumerated(client: Client) -> None:
    schemas = (await served(client))["components"]["schemas"]
    assert enum_of(schemas, "MatchView", "status") == list(get_args(Status))
    assert enum_of(schemas, "SeatView", "kind") == list(get_args(SeatKind))
    assert enum_of(schemas, "SeatView", "level") == list(LEVELS)
    assert enum_of(schemas, "Hint", "level") == list(LEVELS)
    assert sorted(enum_of(schemas, "AiSeat", "level")) == sorted(LEVELS)
    for rules in ("Rules", "RulesRequest"):
        assert sorted(enum_of(schemas, rules, "capture")) == sorted(CAPTURE_MODES)
        assert sorted(enum_of(schemas, rules, "ace_sweeps")) == sorted(ACE_SWEEP_MODES)
    # A point clinched is a point of the deal's scoring.
    assert set(enum_of(schemas, "TeamTally", "clinched")) < set(Points.__struct_fields__)
    assert schemas["Status"]["properties"]["status"]["const"] == "ok"
    assert schemas["Readiness"]["properties"]["status"]["const"] == "ready"
    assert enum_of(schemas, "Readiness", "ai") == ["ready", "missing"]
    union = schemas["EventPage"]["properties"]["events"]["items"]["discriminator"]["mapping"]
    assert set(union) == {member.__struct_config__.tag for member in get_args(EventView)}
    for tag, ref in union.items():
        assert enum_of(schemas, ref.rsplit("/", 1)[1], "type") == [tag]
    for kind in ("human", "open", "ai"):
        assert enum_of(schemas, f"{kind.capitalize()}Seat", "kind") == [kind]


ANSWERS: dict[tuple[str, str], type[msgspec.Struct]] = {
    ("createMatch", "201"): Created,
    ("getMatch", "200"): MatchView,
    ("playMove", "200"): MatchView,
    ("listEvents", "200"): EventPage,
    ("getScores", "200"): Scores,
    ("getHint", "200"): Hint,
    ("listMatches", "200"): Lobby,
    ("joinSeat", "200"): Joined,
}
BODIES: dict[str, type[msgspec.Struct]] = {
    "createMatch": CreateMatch,
    "playMove": MoveRequest,
    "joinSeat": JoinRequest,
}


async def test_answer_examples_are_answers_the_server_gives(client: Client) -> None:
    doc = await served(client)
    ops = operations(doc)
    for (operation_id, status), answer in ANSWERS.items():
        media = ops[operation_id]["responses"][status]["content"]["application/json"]
        assert media["examples"], operation_id
        for example in media["examples"].values():
            assert example["summary"]
            validate(doc, media["schema"], example["value"])
            # Every field there, none more, each of its type.
            struct = msgspec.convert(example["value"], answer)
            assert msgspec.json.decode(msgspec.json.encode(struct)) == example["value"]


async def test_body_examples_are_requests_the_server_takes(client: Client) -> None:
    doc = await served(client)
    ops = operations(doc)
    for operation_id, body in BODIES.items():
        media = ops[operation_id]["requestBody"]["content"]["application/json"]
        assert media["examples"], operation_id
        for example in media["examples"].values():
            validate(doc, media["schema"], example["value"])
            msgspec.convert(example["value"], body)
            if operation_id == "createMatch":
                answer = await client.post("/v1/matches", json=example["value"])
                assert answer.status_code == 201, answer.text


async def test_the_lifecycle_operations_and_fields_are_described(client: Client) -> None:
    doc = await served(client)
    schemas = doc["components"]["schemas"]
    for how, operation_id in (("resign", "resignMatch"), ("abort", "abortMatch")):
        operation = doc["paths"][f"/v1/matches/{{match_id}}/{how}"]["post"]
        assert operation["operationId"] == operation_id
        assert operation["summary"]
        assert {p["name"] for p in operation["parameters"]} >= {"If-Match", "Idempotency-Key"}
        assert {"200", "401", "404", "409", "412", "422"} <= set(operation["responses"])
        assert operation["responses"]["200"]["headers"]["ETag"]
        body = operation["requestBody"]
        assert body["required"] is False
        assert body["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/NoOptions"
        }
    assert schemas["NoOptions"]["additionalProperties"] is False
    assert schemas["NoOptions"].get("properties", {}) == {}
    described = [
        ("MatchView", "end_reason"),
        ("MatchView", "turn_deadline"),
        ("Rules", "turn_seconds"),
        ("Rules", "on_timeout"),
        ("RulesRequest", "turn_seconds"),
        ("RulesRequest", "on_timeout"),
        ("CardPlayed", "auto"),
        ("MatchFinished", "reason"),
    ]
    for schema, field in described:
        assert schemas[schema]["properties"][field]["description"], (schema, field)
    assert {"end_reason", "turn_deadline"} <= set(schemas["MatchView"]["required"])
    turn_seconds = schemas["RulesRequest"]["properties"]["turn_seconds"]["anyOf"]
    assert {"minimum": 5, "maximum": 86400, "type": "integer"} in turn_seconds
    assert schemas["MatchFinished"]["properties"]["reason"]["enum"] == [
        "score", "resigned", "timeout", "aborted", "expired", "abandoned",
    ]  # fmt: skip


async def test_idempotency_keys_say_their_lengths(client: Client) -> None:
    doc = await served(client)
    # No space at either end, which HTTP would strip on the way.
    secret = "^[\\x21-\\x7e][\\x20-\\x7e]{14,253}[\\x21-\\x7e]$"
    operations = {
        "/v1/matches": secret,
        "/v1/matches/{match_id}/seats/{seat}/join": secret,
        "/v1/matches/{match_id}/moves": "^[\\x21-\\x7e]([\\x20-\\x7e]{0,253}[\\x21-\\x7e])?$",
    }
    for path, pattern in operations.items():
        parameters = doc["paths"][path]["post"]["parameters"]
        key = next(p for p in parameters if p["name"] == "Idempotency-Key")
        assert key["schema"]["pattern"] == pattern, path
        assert key["in"] == "header"
