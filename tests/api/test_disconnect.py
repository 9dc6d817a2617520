"""Work for a client that may leave (api.disconnect): dropped when it goes first."""

from __future__ import annotations

import asyncio
from typing import Any

from scopa.api.disconnect import unless_gone


class Client:
    """An ASGI request's receive: its (empty) body, then the disconnect when it leaves."""

    def __init__(self) -> None:
        self.left = asyncio.Event()
        self.sent_body = False

    async def receive(self) -> dict[str, Any]:
        if not self.sent_body:
            self.sent_body = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.left.wait()
        return {"type": "http.disconnect"}


async def test_work_done_first_is_answered() -> None:
    async def quick() -> str:
        return "hint"

    assert await unless_gone(Client(), quick()) == "hint"


async def test_work_is_cancelled_when_the_client_leaves_first() -> None:
    client = Client()
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow() -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    answer = asyncio.create_task(unless_gone(client, slow()))
    await started.wait()
    client.left.set()

    assert await asyncio.wait_for(answer, 5) is None
    assert cancelled.is_set()
