"""The yardstick and the two floors for bench/api.py: Litestar doing as little as it can.

    python -m bench.bare_app [--host H] [--port P] [--database postgresql://...]

- ``GET /``, the yardstick: a small JSON object, nothing else (bench/api.py's
  ``bare_rps``, which ``ratio`` divides by).
- ``POST /echo/{n}``, the floor of any POST: reads a small JSON body and answers a small
  JSON object, no storage (``echo_*``).
- ``POST /write/{n}``, the floor of any POST that stores one change: one statement,
  committed, through an asyncpg pool as large as the server's pool and lane together
  (``infra.db.CONNECTIONS``): row ``n`` of ``bench_floor`` gets its version bumped and
  ``bench_floor_events`` a ~200-byte row under that version, the least a stored move
  costs (``write_*``).
- ``POST /play/{n}``, the least a move does: the rules (the first legal move of the seat
  to play, on a match kept in memory for connection ``n``, a new one once it ends), the
  state and its events encoded as the server stores them, one statement like the write's
  storing them, and the mover's view answered as the server answers it
  (``api.view_answer``): no token, log line, metrics, idempotency, clock or
  notification (``play_*``).
- ``POST /duties/{n}``, the least a move does with what the contract and its operators
  ask around it, each in the server's own code or in the cheapest form this stack
  offers: the request id and the access-log line (``api.middleware.observe``, logging
  configured as ``scopa serve`` configures it), the route's metrics
  (``api.middleware.RouteMetrics``), the seat token read (``api.parsing.bearer``), hashed
  (``service.ids.token_hash``) and compared, the clock read for the turn's deadline, the
  statement bounded by asyncpg's own timeout, the notification in the same statement
  (``infra.notify.notice``) and heard back by the server's listener
  (``infra.notify.PostgresEventBus``). Not in it: ``If-Match``, ``Idempotency-Key``
  (the move run sends neither), the service's retries, the records' cache, the AI's
  queue (``duties_*``). What it costs over the write is the least any server on this
  stack could spend on a stored move that keeps the contract.

The tables are bench/api.py's to create. Without ``--database`` the writing routes
answer 503.

Served exactly as ``scopa serve`` serves the real app (infra/cli.py: the garbage
collector settled once built, ``infra.collector``, then ``uvicorn.run`` with its event
loop, uvloop, and its HTTP parser, httptools, one process, no uvicorn logging), so the
difference between these and the real app is what the real app does per request.
"""

from __future__ import annotations

import argparse
import hmac
import time
from typing import Annotated, Any

import asyncpg
import msgspec
import uvicorn
from litestar import Litestar, Request, Response, get, post
from litestar.datastructures import State
from litestar.exceptions import HTTPException
from litestar.params import PathParameter

from scopa.api.middleware import RequestIdFilter, RouteMetrics, observe
from scopa.api.parsing import bearer
from scopa.api.view_answer import ViewAnswer
from scopa.cli import LOOP
from scopa.contract.views import MatchView, match_view
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, legal_moves, new_match, play_named
from scopa.domain.rules import Rules
from scopa.infra import collector
from scopa.infra import logging as json_logging
from scopa.infra.db import CONNECTIONS
from scopa.infra.guard import OPERATION_SECONDS
from scopa.infra.notify import CHANNEL, PostgresEventBus, notice
from scopa.service.ids import token_hash

# One statement, so one round trip and its own transaction: the version bump and the
# event row commit together, or neither does.
WRITE = """
WITH moved AS (
    UPDATE bench_floor SET version = version + 1 WHERE id = $1 RETURNING id, version
)
INSERT INTO bench_floor_events (id, seq, payload) SELECT id, version, $2 FROM moved
RETURNING seq
"""
# About what a stored move's event weighs.
PAYLOAD = bytes(range(200))
# The play floor's save: the new state at the next version and its events, in one
# statement as the server's save is (scopa/infra/unit_of_work.py).
PLAY = """
WITH moved AS (
    UPDATE bench_play SET version = version + 1, state = $2 WHERE id = $1
    RETURNING id, version
)
INSERT INTO bench_play_events (id, version, seq, payload)
SELECT moved.id, moved.version, e.seq, e.payload
FROM moved, unnest($3::integer[], $4::bytea[]) AS e (seq, payload)
"""
# The duties' save: the play's, with the notification every process listens for.
DUTIES = """
WITH moved AS (
    UPDATE bench_play SET version = version + 1, state = $2 WHERE id = $1
    RETURNING id, version
), added AS (
    INSERT INTO bench_play_events (id, version, seq, payload)
    SELECT moved.id, moved.version, e.seq, e.payload
    FROM moved, unnest($3::integer[], $4::bytea[]) AS e (seq, payload)
)
SELECT pg_notify($5, $6) FROM moved
"""
TWO_HUMANS = (Seat("human"), Seat("human"))
# The duties' seat tokens, one a seat, as bench/wrk_client.lua sends them.
SEAT_HASHES = tuple(token_hash(f"bench-seat-{seat}") for seat in range(2))
# The match's next moment, read off the clock as the server reads it for every change;
# a view shows it only on a clocked turn, and the bench's matches have no clock.
TURN_SECONDS = 60.0
_encode = msgspec.msgpack.Encoder().encode

# Declared as the real app declares its path parameters (api/controllers/params.py).
Row = Annotated[int, PathParameter(description="The client's connection, 0 to N - 1")]


@get("/")
async def hello() -> dict[str, object]:
    return {"hello": "world", "n": 1}


@post("/echo/{n:int}", status_code=200)
async def echo(n: Row, request: Request[Any, Any, Any]) -> dict[str, object]:
    # The body read and decoded as the real move route does (api/controllers/moves.py).
    data = msgspec.json.decode(await request.body(), type=dict[str, Any])
    return {"n": n, "card": data.get("card")}


@post("/write/{n:int}", status_code=200)
async def write(n: Row, state: State) -> dict[str, object]:
    seq = await writing_pool(state).fetchval(WRITE, n, PAYLOAD)
    if seq is None:
        raise HTTPException(status_code=404, detail=f"no bench_floor row {n}")
    return {"seq": seq}


@post("/play/{n:int}", status_code=200)
async def play(n: Row, request: Request[Any, Any, Any], state: State) -> Response[MatchView]:
    pool = writing_pool(state)
    msgspec.json.decode(await request.body(), type=dict[str, Any])
    seat, match, events = next_move(n, state)
    await pool.execute(
        PLAY, n, _encode(match), [e.seq for e in events], [_encode(e) for e in events]
    )
    state.matches[n] = match
    return ViewAnswer(match_view(str(n), match, seat))


@post("/duties/{n:int}", status_code=200, middleware=[RouteMetrics])
async def duties(n: Row, request: Request[Any, Any, Any], state: State) -> Response[MatchView]:
    pool = writing_pool(state)
    token = bearer(request)
    if token is None or not hmac.compare_digest(token_hash(token), SEAT_HASHES[n % 2]):
        raise HTTPException(status_code=401, detail="not this seat's token")
    msgspec.json.decode(await request.body(), type=dict[str, Any])
    seat, match, events = next_move(n, state)
    deadline = time.time() + TURN_SECONDS
    await pool.execute(
        DUTIES,
        n,
        _encode(match),
        [e.seq for e in events],
        [_encode(e) for e in events],
        CHANNEL,
        notice(str(n), match.seq, False),
        timeout=OPERATION_SECONDS,
    )
    state.matches[n] = match
    return ViewAnswer(match_view(str(n), match, seat, deadline=deadline))


def writing_pool(state: State) -> asyncpg.Pool:
    pool: asyncpg.Pool | None = state.get("pool")
    if pool is None:
        raise HTTPException(status_code=503, detail="started without --database")
    return pool


def next_move(n: int, state: State) -> tuple[int, MatchState, list[StoredEvent]]:
    """Row n's match after its next move (the first legal one), not stored yet; a new
    match once the last one has ended."""
    matches: dict[int, MatchState] = state.matches
    match = matches.get(n)
    if match is None or match.status != "active":
        match, _ = new_match(Rules(), TWO_HUMANS, seed=n + len(matches) * 7919)
    seat = match.turn
    assert seat is not None
    move = legal_moves(match)[0]
    match, events = play_named(match, seat, move.card, move.capture)
    return seat, match, events


class BareApp(Litestar):
    """Litestar, with only the duties' route named and logged as the server names and
    logs every request (``api.app.ScopaApp``)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/duties/"):
            await observe(scope, receive, send, super().__call__)
        else:
            await super().__call__(scope, receive, send)


async def nothing_to_reset(_conn: asyncpg.Connection) -> None:
    """The write is one statement outside any transaction and leaves no session state:
    asyncpg's default reset on release (a query, so a round trip) would only make the
    floor look higher than it is."""


def build(database: str | None = None) -> Litestar:
    """The app; with a DSN (plain ``postgresql://``), ``/write``, ``/play`` and ``/duties``
    have a pool to write with, and ``/duties`` a listener to hear its notices."""

    routes = [hello, echo, write, play, duties]
    if database is None:
        return BareApp(routes)
    # The duties' notifications, heard as the server hears its own.
    bus = PostgresEventBus(database)

    async def open_pool(app: Litestar) -> None:
        app.state.matches = {}
        app.state.pool = await asyncpg.create_pool(
            database, min_size=CONNECTIONS, max_size=CONNECTIONS, reset=nothing_to_reset
        )
        await bus.start()

    async def close_pool(app: Litestar) -> None:
        await bus.stop()
        await app.state.pool.close()

    return BareApp(routes, on_startup=[open_pool], on_shutdown=[close_pool])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--database", help="postgresql://... DSN of the writing routes")
    args = parser.parse_args(argv)
    app = build(args.database)
    json_logging.configure(filters=[RequestIdFilter()])
    collector.settle()
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        loop=LOOP,
        http="httptools",
        log_config=None,
        access_log=False,
    )


if __name__ == "__main__":
    main()
