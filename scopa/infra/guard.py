"""Calls to the database that answer in time: each store method is guarded so that a
database which hangs rather than refuses costs the caller ``OPERATION_SECONDS`` at most,
and a driver's failure to reach it surfaces as ``DatabaseUnavailable``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from scopa.infra.db import DatabaseUnavailable, is_unavailable

# Each call answers within this or counts as unavailable. A database that hangs rather
# than refuses would otherwise hold one call through a pool wait, a connect and a
# statement in turn (8, 3 and 5 s), then through the ROLLBACK that tidies up after it.
OPERATION_SECONDS = 5.0

P = ParamSpec("P")
R = TypeVar("R")


class Abandons(Protocol):
    """What a guarded method's owner does with a call it gave up on."""

    def abandon(self, call: asyncio.Future[Any]) -> None: ...


S = TypeVar("S", bound=Abandons)


def _end_wait(waiting: asyncio.Future[None], *_: object) -> None:
    if not waiting.done():
        waiting.set_result(None)


def reaching_database(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """A store's method, made to answer within OPERATION_SECONDS or raise
    DatabaseUnavailable, as it does when the driver says the database is out of reach."""

    @functools.wraps(method)
    async def guarded(store: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        # Waiting on the call rather than in it: at the deadline the caller has its
        # answer at once, while the cancelled call lets go of its connection aside.
        # One future woken by whichever comes first, the call or the deadline: what
        # asyncio.wait does for any number of calls, at a fraction of its cost per call.
        loop = asyncio.get_running_loop()
        call = loop.create_task(method(store, *args, **kwargs))
        over = loop.create_future()
        call.add_done_callback(functools.partial(_end_wait, over))
        deadline = loop.call_later(OPERATION_SECONDS, _end_wait, over)
        try:
            await over
        except BaseException:
            store.abandon(call)
            raise
        finally:
            deadline.cancel()
        if not call.done():
            store.abandon(call)
            raise DatabaseUnavailable(f"no answer in {OPERATION_SECONDS:.0f} s")
        try:
            return call.result()
        except Exception as error:
            if is_unavailable(error):
                raise DatabaseUnavailable(str(error)) from error
            raise

    return guarded


class Abandoning:
    """A store whose calls ``_reaching_database`` may give up on."""

    def __init__(self) -> None:
        self._abandoned: set[asyncio.Future[Any]] = set()

    def abandon(self, call: asyncio.Future[Any]) -> None:
        """Cancel a call nobody waits for any more; it lets go of its connection aside."""
        call.cancel()
        # Whatever it ends with is nobody's to handle now: mark it seen.
        call.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._abandoned.add(call)
        call.add_done_callback(self._abandoned.discard)

    async def settle(self) -> None:
        """Wait (a bounded time) for the abandoned calls to let go of their connections:
        an engine disposed under one leaves it waiting on a driver that is gone."""
        if self._abandoned:
            await asyncio.wait(self._abandoned, timeout=OPERATION_SECONDS)
