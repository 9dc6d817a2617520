"""The web client's files: `/` is its start screen, whose developers' page says what this
server is and where its API is described; every file the client loads is served with its
type; the app's manifest names icons that exist; the service worker is served from the
root, names the client's own files only and changes with the release; none of it enters
the API document."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scopa.api import __version__
from tests.api.support import Client

STATIC = Path(__file__).resolve().parents[2] / "scopa" / "api" / "static"
IMPORT = re.compile(r"""^import .* from "\./([a-z0-9]+\.js)";$""", re.MULTILINE)
TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
SHELL = re.compile(r"^const SHELL = (.*);$", re.MULTILINE)


async def test_the_start_screen_is_served_at_the_root(client: Client) -> None:
    answer = await client.get("/")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    page = answer.text
    assert '<script type="module" src="/static/js/main.js">' in page
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    # The developers' material is a screen of its own, linked from the footer.
    developers = page.split('<section id="developers-screen"')[1].split("</section>")[0]
    assert "A game server for the Italian card game Scopa" in developers
    assert 'href="/schema/swagger"' in developers
    assert 'href="/schema/openapi.json"' in developers
    start = page.split('<section id="start-screen"')[1].split('<section id="players-screen"')[0]
    assert "/schema" not in start
    assert 'href="/#/developers"' in page.split('<footer class="site-footer">')[1]


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
    assert not [
        path for path in doc["paths"] if path in ("/", "/sw.js") or path.startswith("/static")
    ]


async def test_the_manifest_makes_an_installable_app_with_existing_icons(client: Client) -> None:
    answer = await client.get("/static/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(answer.content)
    assert manifest["name"] == manifest["short_name"] == "Scopa"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    purposes = set()
    for icon in manifest["icons"]:
        purposes |= set(icon["purpose"].split())
        assert icon["type"] == "image/svg+xml"
        drawn = await client.get(icon["src"])
        assert drawn.status_code == 200, icon["src"]
        assert drawn.headers["content-type"].startswith("image/svg+xml")
        assert drawn.text.lstrip().startswith("<svg")
    assert {"any", "maskable"} <= purposes


async def test_the_service_worker_is_served_from_the_root_with_the_release(client: Client) -> None:
    answer = await client.get("/sw.js")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    script = answer.text
    assert script.startswith(f"const VERSION = {json.dumps(__version__)};\n")
    assert script.endswith((STATIC / "sw.js").read_text())
    found = SHELL.search(script)
    assert found is not None
    shell = json.loads(found.group(1))
    assert "/" in shell
    assert {"/static/js/main.js", "/static/i18n/it.json", "/static/manifest.webmanifest"} <= set(
        shell
    )
    # The client's own files and nothing else: never the API, the schema or another origin.
    assert all(path == "/" or path.startswith("/static/") for path in shell)
    assert "/static/sw.js" not in shell
    for path in shell:
        kept = await client.get(path)
        assert kept.status_code == 200, path


async def test_the_service_worker_leaves_the_api_to_the_network() -> None:
    script = (STATIC / "sw.js").read_text()
    own = re.search(r"const OWN = /(.*)/;", script)
    assert own is not None
    pattern = re.compile(own.group(1).replace("\\/", "/"))
    for path in ("/", "/static/js/main.js", "/static/i18n/en.json"):
        assert pattern.match(path), path
    for path in (
        "/v1/matches",
        "/schema",
        "/schema/openapi.json",
        "/static/swagger/x.js",
        "/sw.js",
    ):
        assert not pattern.match(path), path
