"""The web client's files: `/` is its start screen, which says what this server is and
where its API is described; every file the client loads is served with its type; none
of it enters the API document."""

from __future__ import annotations

import re
from pathlib import Path

from tests.api.support import Client

STATIC = Path(__file__).resolve().parents[2] / "scopa" / "api" / "static"
IMPORT = re.compile(r"""^import .* from "\./([a-z0-9]+\.js)";$""", re.MULTILINE)
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}


async def test_the_start_screen_is_served_at_the_root(client: Client) -> None:
    answer = await client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    page = answer.text
    assert "A game server for the Italian card game Scopa" in page
    assert 'href="/schema/swagger"' in page
    assert 'href="/schema/openapi.json"' in page
    assert '<script type="module" src="/static/js/main.js">' in page


async def test_every_file_the_client_loads_is_served_with_its_type(client: Client) -> None:
    page = (STATIC / "index.html").read_text()
    wanted = set(re.findall(r'(?:href|src)="/static/([^"]+)"', page))
    for module in (STATIC / "js").glob("*.js"):
        wanted |= {f"js/{name}" for name in IMPORT.findall(module.read_text())}
    wanted |= {f"i18n/{path.name}" for path in (STATIC / "i18n").glob("*.json")}
    assert {
        "js/main.js",
        "js/api.js",
        "js/i18n.js",
        "scopa.css",
        "i18n/en.json",
        "i18n/it.json",
    } <= wanted
    for name in sorted(wanted):
        answer = await client.get(f"/static/{name}")
        assert answer.status_code == 200, name
        assert answer.headers["content-type"].startswith(TYPES[Path(name).suffix]), name
        assert answer.content == (STATIC / name).read_bytes()
        assert answer.headers["cache-control"] == "no-cache"


async def test_a_missing_file_is_a_404_problem(client: Client) -> None:
    answer = await client.get("/static/js/nothing.js")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"


async def test_the_client_is_not_part_of_the_api_document(client: Client) -> None:
    doc = (await client.get("/schema/openapi.json")).json()
    assert not [path for path in doc["paths"] if path == "/" or path.startswith("/static")]
