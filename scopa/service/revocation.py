"""What a player token opened ends when the token is revoked, or its player deleted, in
every process: the store announces the revocation (``ids.revoked_key``) on commit, and
each stream the token opened waits on it beside its own news. A process can miss an
announcement (its listener reconnecting), so the token is also checked again at each
heartbeat: a stream outlives its token by a heartbeat at most."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

from scopa.service.feed import HEARTBEAT_SECONDS
from scopa.service.ids import revoked_key
from scopa.service.ports import EventBus, Players

T = TypeVar("T")


class Revocations:
    def __init__(
        self, players: Players, bus: EventBus, clock: Callable[[], float] = time.time
    ) -> None:
        self.players = players
        self.bus = bus
        self.clock = clock

    async def until_revoked(self, items: AsyncIterator[T], token_hash: str) -> AsyncIterator[T]:
        """``items`` until the token of ``token_hash`` is revoked; ``items`` is closed."""
        revoked = asyncio.create_task(self._revoked(token_hash))
        try:
            while True:
                following = asyncio.ensure_future(anext(items))
                await asyncio.wait((following, revoked), return_when=asyncio.FIRST_COMPLETED)
                if not following.done():
                    following.cancel()
                    await asyncio.gather(following, return_exceptions=True)
                    return
                try:
                    item = following.result()
                except StopAsyncIteration:
                    return
                yield item
        finally:
            revoked.cancel()
            # Retrieved, so that a store down while checking ends the stream quietly.
            await asyncio.gather(revoked, return_exceptions=True)

    async def _revoked(self, token_hash: str) -> None:
        """Returns once the token is no longer live."""
        key = revoked_key(token_hash)
        while True:
            await self.bus.wait(key, 0, HEARTBEAT_SECONDS)
            if await self.players.authenticate(token_hash, self.clock()) is None:
                return
