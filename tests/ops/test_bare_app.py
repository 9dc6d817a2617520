"""bench/bare_app.py's routes answer as bench/wrk_client.lua expects: 200s, no storage
needed but for /write, which says 503 without a database rather than failing later."""

from __future__ import annotations

from litestar.testing import TestClient

from bench.bare_app import build


def test_routes_without_a_database() -> None:
    with TestClient(app=build()) as client:
        assert client.get("/").json() == {"hello": "world", "n": 1}
        echoed = client.post("/echo/3", json={"card": "7D"})
        assert (echoed.status_code, echoed.json()) == (200, {"n": 3, "card": "7D"})
        assert client.post("/write/3", json={"card": "7D"}).status_code == 503
