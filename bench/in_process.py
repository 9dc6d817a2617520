"""The app's own CPU per request, without sockets: a move's and a view's, one at a time.

    python -m bench.in_process [--moves N]

The app is built as ``scopa serve`` builds it (``infra.app_factory.build_app``, its
start-up run, the collector settled), on a fresh Postgres database with quotas off, and
called as an ASGI app directly: no HTTP parsing, no socket, no client beside it. 50
two-human matches are played in turn: for each move a view of the seat to move (a GET),
then its first legal move (a POST). Each request's CPU is ``time.process_time`` around
the call, so the AI pool's processes and Postgres do not count. ``bench/api.py`` measures
the same app over HTTP against its floors; this says how much of a move's cost is the
app's per-request path (what a view costs too) and how much is the move itself. The last
line is JSON: milliseconds of CPU a request, median over ``--rounds`` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.scale import database
from scopa.infra import collector
from scopa.infra.settings import Settings
from scopa.wiring import build_app

MATCHES = 50
App = Any


async def call(
    app: App, method: str, path: str, token: str | None = None, body: bytes = b""
) -> tuple[int, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never leaves
        raise AssertionError("unreachable")

    status, chunks = 0, []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, json.loads(b"".join(chunks) or b"null")


class Lifespan:
    """The app's start-up and shut-down, run as uvicorn runs them."""

    def __init__(self, app: App) -> None:
        self._app = app
        self._inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._outbox: asyncio.Queue[str] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def _step(self, kind: str) -> None:
        await self._inbox.put({"type": f"lifespan.{kind}"})
        answer = await self._outbox.get()
        if not answer.endswith("complete"):
            raise RuntimeError(f"the app's {kind} failed: {answer}")

    async def start(self) -> None:
        async def send(message: dict[str, Any]) -> None:
            await self._outbox.put(message["type"])

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self._task = asyncio.create_task(self._app(scope, self._inbox.get, send))
        await self._step("startup")

    async def stop(self) -> None:
        await self._step("shutdown")
        if self._task is not None:
            await self._task


async def new_match(app: App) -> dict[str, Any]:
    two_humans = json.dumps({"seats": [{"kind": "human"}, {"kind": "human"}]}).encode()
    _, created = await call(app, "POST", "/v1/matches", body=two_humans)
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    return {"id": created["match"]["id"], "tokens": tokens, "turn": created["match"]["turn"]}


async def play(app: App, matches: list[dict[str, Any]], moves: int) -> tuple[float, float]:
    """CPU milliseconds of a move's request and of a view's, over ``moves`` moves."""
    move_cpu = view_cpu = 0.0
    played = turn = views = 0
    while played < moves:
        at = turn % len(matches)
        turn += 1
        match = matches[at]
        if match["turn"] is None:  # finished: another takes its place
            matches[at] = await new_match(app)
            continue
        token = match["tokens"][match["turn"]]
        began = time.process_time()
        _, view = await call(app, "GET", f"/v1/matches/{match['id']}", token)
        view_cpu += time.process_time() - began
        views += 1
        if view["turn"] != match["turn"]:
            match["turn"] = view["turn"]
            continue
        move = view["legal_moves"][0]
        body = json.dumps({"card": move["card"], "capture": move["capture"]}).encode()
        began = time.process_time()
        status, moved = await call(app, "POST", f"/v1/matches/{match['id']}/moves", token, body)
        move_cpu += time.process_time() - began
        if status != 200:
            raise RuntimeError(f"move refused: {status} {moved}")
        match["turn"] = moved["turn"]
        played += 1
    return move_cpu / moves * 1000, view_cpu / views * 1000


async def run(env: dict[str, str], moves: int, rounds: int) -> dict[str, Any]:
    app = build_app(Settings.from_env(env))
    lifespan = Lifespan(app)
    await lifespan.start()
    collector.settle()
    try:
        matches = [await new_match(app) for _ in range(MATCHES)]
        await play(app, matches, moves // 4)  # warm: statements prepared, caches filled
        figures = [await play(app, matches, moves) for _ in range(rounds)]
    finally:
        await lifespan.stop()
    return {
        "move_cpu_ms": round(statistics.median(f[0] for f in figures), 3),
        "view_cpu_ms": round(statistics.median(f[1] for f in figures), 3),
        "moves": moves,
        "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves a round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with database() as env:
        figures = uvloop.run(run(env, args.moves, args.rounds))  # the loop scopa serve runs
    print(
        f"a move's request: {figures['move_cpu_ms']:.3f} ms of CPU; "
        f"a view's: {figures['view_cpu_ms']:.3f} ms (median of {args.rounds} rounds)"
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
