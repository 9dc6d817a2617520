"""Each problem type URI has its page on this server; every 404 is problem+json."""

from __future__ import annotations

import pytest

from scopa.api import errors
from scopa.api.errors import PROBLEM_BASE, Kind
from tests.api.support import Client, problem_type
from tests.support.in_process import InProcess

KINDS = [v for v in vars(errors).values() if isinstance(v, Kind)]
# One app for the module: each test only reads.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture
def client(module_app: InProcess) -> Client:
    return module_app.client


@pytest.mark.parametrize("kind", KINDS, ids=[k.slug for k in KINDS])
async def test_every_problem_type_has_a_page(client: Client, kind: Kind) -> None:
    assert kind.type == PROBLEM_BASE + kind.slug
    page = await client.get(f"/problems/{kind.slug}")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert f"<h1>{kind.title}</h1>" in page.text.replace("&#x27;", "'")
    assert kind.type in page.text
    assert "What causes it" in page.text
    assert "What to send instead" in page.text


async def test_the_type_of_an_answer_leads_to_its_page(client: Client) -> None:
    answer = await client.get("/v1/matches/" + "A" * 22)
    page = await client.get("/problems/" + problem_type(answer))
    assert page.status_code == 200
    assert "create, join or the lobby" in page.text


async def test_problem_pages_are_not_in_the_api_document(client: Client) -> None:
    document = (await client.get("/schema/openapi.json")).json()
    assert not [path for path in document["paths"] if path.startswith("/problems")]


@pytest.mark.parametrize(
    "path",
    [
        "/problems/no-such-problem",
        "/problems/",
        "/schema/redoc",
        "/schema/elements",
        "/schema/rapidoc",
        "/schema/scalar",
        "/schema/openapi.yaml",
        "/schema/nothing",
        "/nothing",
    ],
)
async def test_every_404_is_problem_json(client: Client, path: str) -> None:
    answer = await client.get(path)
    assert answer.status_code == 404
    assert problem_type(answer) == "not-found"


async def test_the_swagger_ui_stays(client: Client) -> None:
    answer = await client.get("/schema/swagger")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("path", ["/schema", "/schema/"])
async def test_a_browser_at_schema_is_sent_to_the_docs(client: Client, path: str) -> None:
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    answer = await client.get(path, headers={"Accept": browser})
    assert answer.status_code == 302
    assert answer.headers["location"] == "/schema/swagger"
    assert "accept" in answer.headers["vary"].lower()


@pytest.mark.parametrize("accept", [None, "*/*", "application/json", "text/html;q=0"])
async def test_an_api_client_at_schema_still_gets_the_document(
    client: Client, accept: str | None
) -> None:
    answer = await client.get("/schema", headers={"Accept": accept} if accept else {})
    assert answer.status_code == 200
    assert answer.json()["openapi"].startswith("3.")
