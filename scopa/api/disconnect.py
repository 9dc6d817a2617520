"""Work for a client that may leave: a hint is an AI decision, and one whose client has
gone is dropped before it is computed (``infra.ai_pool`` lets a cancelled decision go
while it waits for a process)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine, Mapping
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

# nginx's "client closed request": logged, never seen by the client, who has gone.
CLIENT_GONE = 499


class Receiving(Protocol):
    """All that is read of a request here (a Litestar Request has it): its ASGI receive."""

    def receive(self) -> Awaitable[Mapping[str, object]]: ...


async def _gone(request: Receiving) -> None:
    """Until the client disconnects. The request's body (a GET has none) is read and
    dropped: what follows it can only be the disconnect."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def unless_gone(request: Receiving, work: Coroutine[Any, Any, T]) -> T | None:
    """``work``'s result, or None once the client went first (``work`` then cancelled)."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_gone(request))
    try:
        await asyncio.wait((task, watch), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return None if task.cancelled() else task.result()
