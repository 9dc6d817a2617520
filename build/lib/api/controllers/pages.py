"""Pages for people, outside the JSON API: the landing page, and the Swagger UI's assets
served from the installed swagger-ui-bundle-v2 package, so the docs need no CDN."""

from __future__ import annotations

from litestar import MediaType, Router, get
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

SWAGGER_ASSETS = "/static/swagger"

LANDING = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scopa</title>
<style>body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto;
padding: 0 1rem; line-height: 1.5 }</style>
</head>
<body>
<h1>Scopa</h1>
<p>A game server for Scopa, the Italian card game. Front ends and bots create matches,
play them against each other or against the server's AI, and follow them through the
JSON API under <code>/v1</code>; seat tokens say who may see which hand.</p>
<ul>
<li><a href="/schema/swagger">The API reference</a>: every route, field and error, with
examples, to try in the browser</li>
<li><a href="/schema/openapi.json">The OpenAPI document</a>, for client generators</li>
<li><a href="/v1/matches">The lobby</a>: matches waiting for a player, as JSON</li>
<li><a href="/health">/health</a> and <a href="/ready">/ready</a> for load balancers,
<a href="/metrics">/metrics</a> for Prometheus</li>
</ul>
<p>The rules, a guide to the API and the operators' notes are in the repository, with
the server's source.</p>
</body>
</html>
"""


@get("/", media_type=MediaType.HTML, include_in_schema=False, sync_to_thread=False)
def landing() -> str:
    return LANDING


def swagger_assets() -> Router:
    return create_static_files_router(
        path=SWAGGER_ASSETS, directories=[swagger_ui_path], name="swagger-assets"
    )
