"""The published OpenAPI document: what the server serves is what is committed, and it
states what the server enforces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from infra.cli import render_openapi
from tests.api.support import Client

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


async def served(client: Client) -> Any:
    answer = await client.get("/schema/openapi.json")
    assert answer.status_code == 200
    return answer.json()


async def test_the_committed_document_is_the_served_one(client: Client) -> None:
    assert json.loads(COMMITTED.read_text()) == await served(client), (
        "openapi/openapi.json is stale: run `scopa openapi`"
    )
    assert COMMITTED.read_text() == render_openapi()


async def test_swagger_ui_is_served(client: Client) -> None:
    answer = await client.get("/schema/swagger")
    assert answer.status_code == 200
    assert "SwaggerUIBundle" in answer.text


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
    assert create["seed"] == {"minimum": 0, "maximum": 2**63 - 1, "type": "integer"}
    assert create["first_dealer"]["minimum"] == 0
    assert create["decks"]["items"]["items"]["pattern"] == "^(A|[2-7]|J|Q|K)[CDHS]$"
    assert schemas["RulesRequest"]["properties"]["target"] == {
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


async def test_idempotency_keys_say_their_lengths(client: Client) -> None:
    doc = await served(client)
    operations = {
        "/v1/matches": "^[\\x20-\\x7e]{16,255}$",
        "/v1/matches/{match_id}/seats/{seat}/join": "^[\\x20-\\x7e]{16,255}$",
        "/v1/matches/{match_id}/moves": "^[\\x20-\\x7e]{1,255}$",
    }
    for path, pattern in operations.items():
        parameters = doc["paths"][path]["post"]["parameters"]
        key = next(p for p in parameters if p["name"] == "Idempotency-Key")
        assert key["schema"]["pattern"] == pattern, path
        assert key["in"] == "header"
