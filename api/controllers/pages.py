"""Pages for people, outside the JSON API: the landing page."""

from __future__ import annotations

from litestar import MediaType, get

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
