"""Single statements on Postgres, outside any transaction, on connections kept for them.

The hot paths are one statement each: a move's save, a view's read, the limits' counts,
the queues' claims. Checked out of SQLAlchemy's pool, each paid about 0.1 ms of CPU around
the statement (two greenlet switches, the pool's events, its reset on return), where the
statement itself costs under 0.04 ms on a connection at hand: a lane is a stack of asyncpg
connections with a cap, and nothing else. Transactions stay with the engine's pool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from weakref import WeakKeyDictionary

import asyncpg
from sqlalchemy import event
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import await_only

# Raised by asyncpg before anything is sent: the statement can go again elsewhere.
_UNSENT: tuple[type[Exception], ...] = (asyncpg.InterfaceError, asyncpg.InternalClientError)
# The connection went while the statement was on its way or running.
_DROPPED: tuple[type[Exception], ...] = (
    ConnectionError,
    asyncpg.PostgresConnectionError,
    asyncpg.AdminShutdownError,
)

Connect = Callable[[], Awaitable[asyncpg.Connection]]


class Lane:
    """At most ``size`` connections, each running one statement at a time; a caller
    waits ``wait`` seconds at most for one (then TimeoutError: the database is out of
    reach). Connections are made when first needed and kept; one the server closed, or
    whose statement was cut short, is let go and a new one made in its place."""

    def __init__(self, connect: Connect, size: int, wait: float) -> None:
        self._connect = connect
        self._slots = asyncio.Semaphore(size)
        self._wait = wait
        self._idle: list[asyncpg.Connection] = []
        # Bumped by close(): a connection taken before it is not kept afterwards.
        self._generation = 0

    async def run(self, fetch: str, query: str, *args: object, read: bool) -> Any:
        """One statement (``fetch`` names the asyncpg method). A connection the server
        ended while it sat idle can fail before sending anything, if the loop had not yet
        read the goodbye: then, and for a read on any dropped connection, the statement
        goes once more on a fresh one. A write that may have reached the server is not
        sent twice: its outcome is unknown, and the caller hears so."""
        if self._slots.locked():
            await asyncio.wait_for(self._slots.acquire(), self._wait)
        else:
            await self._slots.acquire()
        try:
            for last in (False, True):
                connection, generation = await self._take(), self._generation
                try:
                    result = await getattr(connection, fetch)(query, *args)
                except (*_UNSENT, *_DROPPED) as error:
                    connection.terminate()
                    if last or not (isinstance(error, _UNSENT) or read):
                        raise
                except asyncpg.PostgresError:
                    # The server refused the statement and is ready for the next one.
                    self._keep(connection, generation)
                    raise
                except BaseException:
                    # Cancelled or timed out mid-statement: in no state to trust.
                    connection.terminate()
                    raise
                else:
                    self._keep(connection, generation)
                    return result
            raise AssertionError("unreachable")
        finally:
            self._slots.release()

    async def _take(self) -> asyncpg.Connection:
        while self._idle:
            connection = self._idle.pop()
            if not connection.is_closed():
                return connection
        return await self._connect()

    def _keep(self, connection: asyncpg.Connection, generation: int) -> None:
        if generation == self._generation:
            self._idle.append(connection)
        else:
            connection.terminate()

    async def close(self) -> None:
        """Close the idle connections; those running a statement close when it ends."""
        self._generation += 1
        idle, self._idle = self._idle, []
        await asyncio.gather(*(c.close(timeout=1.0) for c in idle), return_exceptions=True)


_lanes: WeakKeyDictionary[Engine, Lane] = WeakKeyDictionary()


def add_lane(engine: AsyncEngine, lane: Lane) -> None:
    """Give a Postgres engine its lane, closed whenever the engine is disposed."""
    _lanes[engine.sync_engine] = lane

    def disposed(_engine: object) -> None:
        # AsyncEngine.dispose, the only dispose here, runs this inside its greenlet.
        await_only(lane.close())

    event.listen(engine.sync_engine, "engine_disposed", disposed)


async def pg_statement(
    engine: AsyncEngine, fetch: str, query: str, *args: object, read: bool
) -> Any:
    """One statement on ``engine``'s lane (``Lane.run``)."""
    return await _lanes[engine.sync_engine].run(fetch, query, *args, read=read)


def pg_compiled(statement: Any) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """A SQLAlchemy statement as asyncpg text, its parameters' names in ``$n`` order, and
    the values it binds itself (a LIMIT's): compiled once, sent by ``pg_statement``."""
    compiled = statement.compile(dialect=postgresql.asyncpg.dialect())  # type: ignore[no-untyped-call]
    return str(compiled), tuple(compiled.positiontup or ()), dict(compiled.params)
