"""The players' reads at scale: the leaderboard and a player's history, on a database of
1,000 players and 10,000 finished matches.

    python -m bench.players [--players 1000] [--matches 10000] [--requests 400]

On a Postgres database of its own (``SCOPA_BENCH_PG``, as bench/api.py) and on a SQLite
file, each migrated as ``scopa migrate`` does: the players, their tokens and ratings in
every format, and the matches with two seats each held by players, stored as rows in
bulk (one finished match's state for every match: the reads decode it as they would any
other). Then the app in process (httpx over ASGI, so no network and no client process
on the other core) answers, one request at a time:

- ``GET /v1/leaderboard?format=2p-11``, pages of 20 from the top and after cursors;
- ``GET /v1/me/matches`` of random players, first pages and next pages (each player holds
  about 20 matches);
- ``GET /v1/players/{handle}``, a player's page with its counts and ratings.

Each figure is p50/p99/max in ms over ``--requests`` requests after a warm-up. On
Postgres it also prints the plans of the leaderboard's and the history's queries, to
show the indexes they take. The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text

from bench.api import admin, database_url, percentile
from scopa.api.app import create_app
from scopa.domain.match import Seat, new_match, resign
from scopa.domain.rated import FORMATS, PROVISIONAL
from scopa.domain.rules import make_rules
from scopa.infra.codec import encode
from scopa.infra.db import make_engine
from scopa.infra.migrate import migrate
from scopa.infra.notify import LocalEventBus
from scopa.infra.players import MATCH_PLAYERS, PLAYERS, TOKENS
from scopa.infra.settings import Settings
from scopa.infra.standings import RATINGS
from scopa.infra.stores import sql_stores
from scopa.infra.tables import MatchRow
from scopa.service.handles import handle_key
from scopa.service.ids import new_player_token, token_hash
from scopa.wiring import services_over

MATCHES = MatchRow.__table__
T0 = 1_790_000_000.0
CHUNK = 1000


def _chunks(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [rows[i : i + CHUNK] for i in range(0, len(rows), CHUNK)]


async def fill(url: str, players: int, matches: int, seed: int) -> dict[str, str]:
    """The rows; answers each player's token by handle."""
    rng = random.Random(seed)
    handles = [f"player_{i:04d}" for i in range(players)]
    tokens = {h: new_player_token() for h in handles}
    state, _ = new_match(
        make_rules(),
        [Seat("human", name="a", player=handles[0]), Seat("human", name="b", player=handles[1])],
        1,
        rated=True,
    )
    finished = encode(resign(state, 1)[0])
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                PLAYERS.insert(),
                [
                    {
                        "handle": h,
                        "handle_key": handle_key(h),
                        "name": h.title(),
                        "kind": "bot" if i % 5 == 0 else "human",
                        "origin": f"origin {i}",
                        "joined_at": T0 + i,
                    }
                    for i, h in enumerate(handles)
                ],
            )
            await conn.execute(
                TOKENS.insert(),
                [
                    {
                        "id": f"t_{i:010d}",
                        "handle": h,
                        "token_hash": token_hash(tokens[h]),
                        "label": "bench",
                        "created_at": T0,
                    }
                    for i, h in enumerate(handles)
                ],
            )
            ratings = []
            for h in handles:
                for format in FORMATS:
                    deviation = rng.uniform(45.0, 350.0)
                    ratings.append(
                        {
                            "handle": h,
                            "format": format,
                            "rating": rng.gauss(1500.0, 200.0),
                            "deviation": deviation,
                            "volatility": 0.06,
                            "games": rng.randint(1, 60),
                            "established": deviation <= PROVISIONAL,
                        }
                    )
            for chunk in _chunks(ratings):
                await conn.execute(RATINGS.insert(), chunk)
            rows, seats = [], []
            for i in range(matches):
                match_id = f"m{i:021d}"
                created = T0 + 10_000 + i
                rows.append(
                    {
                        "id": match_id,
                        "version": 9,
                        "status": "finished",
                        "state": finished,
                        "initial": finished,
                        "created_at": created,
                        "updated_at": created,
                        "has_open_seat": False,
                        "due_at": None,
                    }
                )
                pair = rng.sample(handles, 2)
                for seat, h in enumerate(pair):
                    seats.append(
                        {
                            "match_id": match_id,
                            "seat": seat,
                            "handle": h,
                            "created_at": created,
                            "result": "won" if seat == 0 else "lost",
                        }
                    )
            for chunk in _chunks(rows):
                await conn.execute(MATCHES.insert(), chunk)
            for chunk in _chunks(seats):
                await conn.execute(MATCH_PLAYERS.insert(), chunk)
        if engine.dialect.name == "postgresql":
            async with engine.begin() as conn:
                await conn.execute(text("ANALYZE"))
    finally:
        await engine.dispose()
    return tokens


@asynccontextmanager
async def app_client(url: str) -> AsyncIterator[httpx.AsyncClient]:
    engine = make_engine(url)
    stores = sql_stores(engine)
    service = services_over(stores, LocalEventBus())
    app = create_app(Settings().without_limits(), service)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            yield client
    finally:
        await engine.dispose()


async def timed(client: httpx.AsyncClient, requests: list[tuple[str, dict[str, str]]]) -> Any:
    took = []
    for path, headers in requests:
        started = time.perf_counter()
        answer = await client.get(path, headers=headers)
        took.append((time.perf_counter() - started) * 1000)
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:200]}")
    took.sort()
    return {
        "p50_ms": round(percentile(took, 0.5), 2),
        "p99_ms": round(percentile(took, 0.99), 2),
        "max_ms": round(took[-1], 2),
        "requests": len(took),
    }


async def measure(url: str, tokens: dict[str, str], count: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    handles = list(tokens)
    async with app_client(url) as client:
        board = "/v1/leaderboard?format=2p-11&limit=20"
        cursors = [None]
        page = (await client.get(board)).json()
        while page["next_cursor"] and len(cursors) < 20:
            cursors.append(page["next_cursor"])
            page = (await client.get(f"{board}&cursor={page['next_cursor']}")).json()

        def board_request() -> tuple[str, dict[str, str]]:
            cursor = rng.choice(cursors)
            return (board + (f"&cursor={cursor}" if cursor else ""), {})

        def history_request() -> tuple[str, dict[str, str]]:
            return (
                "/v1/me/matches?limit=20",
                {"Authorization": f"Bearer {tokens[rng.choice(handles)]}"},
            )

        nexts = []
        for h in rng.sample(handles, 50):
            first = await client.get(
                "/v1/me/matches?limit=10", headers={"Authorization": f"Bearer {tokens[h]}"}
            )
            cursor = first.json()["next_cursor"]
            if cursor:
                nexts.append(
                    (
                        f"/v1/me/matches?limit=10&cursor={cursor}",
                        {"Authorization": f"Bearer {tokens[h]}"},
                    )
                )

        warm = [board_request() for _ in range(50)] + [history_request() for _ in range(50)]
        await timed(client, warm)
        return {
            "leaderboard": await timed(client, [board_request() for _ in range(count)]),
            "history": await timed(client, [history_request() for _ in range(count)]),
            "history_next_page": await timed(client, [rng.choice(nexts) for _ in range(count)]),
            "player_page": await timed(
                client, [(f"/v1/players/{rng.choice(handles)}", {}) for _ in range(count)]
            ),
        }


async def plans(url: str, handle: str) -> list[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            lines = []
            for query in (
                "SELECT r.handle FROM ratings r JOIN players p ON p.handle = r.handle"
                " WHERE r.format = '2p-11' AND r.established AND p.deleted_at IS NULL"
                " ORDER BY r.rating DESC, r.handle LIMIT 21",
                "SELECT m.id FROM match_players mp JOIN matches m ON m.id = mp.match_id"
                f" WHERE mp.handle = '{handle}'"
                " ORDER BY mp.created_at DESC, mp.match_id DESC LIMIT 21",
            ):
                result = await conn.execute(text("EXPLAIN " + query))
                lines += [row[0] for row in result] + [""]
            return lines
    finally:
        await engine.dispose()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "players": args.players,
        "matches": args.matches,
        "seed": args.seed,
    }
    name = f"scopa_bench_{secrets.token_hex(4)}"
    await admin(f'CREATE DATABASE "{name}"')
    try:
        url = database_url(name)
        await migrate(url)
        started = time.perf_counter()
        tokens = await fill(url, args.players, args.matches, args.seed)
        figures["postgres_fill_seconds"] = round(time.perf_counter() - started, 1)
        figures["postgres"] = await measure(url, tokens, args.requests, args.seed)
        for line in await plans(url, next(iter(tokens))):
            print(line)
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await migrate(url)
        tokens = await fill(url, args.players, args.matches, args.seed)
        figures["sqlite"] = await measure(url, tokens, args.requests, args.seed)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args))
    for store in ("postgres", "sqlite"):
        for route, figure in figures[store].items():
            print(
                f"{store:8} {route:18} p50 {figure['p50_ms']:7.2f} ms"
                f"  p99 {figure['p99_ms']:7.2f} ms"
            )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
