"""The "at once" quotas, as opposed to the rates of ``api.ratelimit``.

On matches created: per client address, matches waiting for players
(``SCOPA_WAITING_PER_ADDRESS``) and matches of AI seats only being played
(``SCOPA_AI_ONLY_PER_ADDRESS``); the store counts them as it creates one
(``service.limits.OwnerQuotas``).

On following matches: per client address, the event streams and long polls it holds open
(``SCOPA_STREAMS_PER_ADDRESS``); per match, its open streams (``SCOPA_STREAMS_PER_MATCH``).
Each open one holds a lease in a store every process shares (``service.limits.Slots``).
A long poll over the cap is a 429; a stream is answered 200 with only its ``retry:``
line, since an EventSource gives up for good on a 429 (the caller turns False into that
answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from litestar.types import Scope

from scopa.api.clients import Clients
from scopa.api.errors import rate_limited
from scopa.service.limits import OwnerQuotas, Slots

# When a refused long poll may try again (docs/api.md: at most 10 s for "at once" quotas).
RETRY_SECONDS = 2.0


class CreationQuotas:
    def __init__(self, clients: Clients, waiting: int, ai_only: int) -> None:
        self.clients = clients
        self.waiting = waiting
        self.ai_only = ai_only

    def of(self, scope: Scope) -> OwnerQuotas | None:
        """The quotas of the request's client; None when both are off."""
        if not (self.waiting or self.ai_only):
            return None
        return OwnerQuotas(self.clients.of(scope), self.waiting, self.ai_only)


class StreamLimits:
    def __init__(
        self, slots: Slots | None, clients: Clients, per_address: int, per_match: int
    ) -> None:
        self.slots = slots
        self.clients = clients
        self.per_address = per_address
        self.per_match = per_match
        self._releasing: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def open(self, scope: Scope, match_id: str | None) -> AsyncIterator[bool]:
        """Held while a stream of ``match_id`` (None: a long poll) is open; True when the
        caps let it open."""
        slots = self.slots
        per_match = self.per_match if match_id is not None else 0
        if slots is None or not (self.per_address or per_match):
            yield True
            return
        lease = await slots.hold(self.clients.of(scope), match_id, self.per_address, per_match)
        if lease is None:
            yield False
            return
        try:
            yield True
        finally:
            # A task of its own, shielded: a stream's end may come as a cancellation (the
            # client went), which must not cut the release short and leave the slot held
            # until it lapses.
            task = asyncio.create_task(slots.release(lease), name="release-stream-lease")
            self._releasing.add(task)
            task.add_done_callback(self._releasing.discard)
            await asyncio.shield(task)

    async def settle(self) -> None:
        """Wait for the releases under way (at shutdown, before the store closes)."""
        await asyncio.gather(*self._releasing, return_exceptions=True)

    @asynccontextmanager
    async def long_poll(self, scope: Scope) -> AsyncIterator[None]:
        """Held while a long poll waits; a 429 when the address is over its cap."""
        async with self.open(scope, None) as allowed:
            if not allowed:
                held = f"{self.per_address} streams and long polls open at once from this address"
                raise rate_limited([held], RETRY_SECONDS, {})
            yield
