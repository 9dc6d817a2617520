"""Running an idempotent request once per key.

A retry with the same body gets the first answer again, decoded from the bytes stored
with the change it made (so it is byte for byte what the client first got); a failure
lets go of the key, as failed answers are not kept.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec

from service.errors import IdempotencyKeyInFlight, IdempotencyKeyReused
from service.ports import Answer, Idempotency, IdempotencyConflict, IdempotencyKeys, StoredAnswer

log = logging.getLogger(__name__)

T = TypeVar("T")

# Letting go of a failed request's key may fail too (the database may be what failed):
# the answer waits on it no longer than this.
FOLLOW_UP_SECONDS = 1.0
# A key that could not be let go of is let go of once the database is back, so that a
# retry is not told for the claim's whole lifetime that the first request still runs.
RELEASE_RETRY_SECONDS = 1.0
RELEASE_RETRIES = 60


def answer_of(request: Idempotency | None, body: msgspec.Struct) -> Answer | None:
    """What a change keeps for its request, if it has a key."""
    if request is None:
        return None
    return request, StoredAnswer(request.fingerprint, msgspec.json.encode(body))


class Once:
    def __init__(self, keys: IdempotencyKeys) -> None:
        self.keys = keys
        self._releasing: set[asyncio.Task[None]] = set()

    async def run(
        self,
        scope: str,
        key: str | None,
        fingerprint: str,
        answer_type: type[T],
        work: Callable[[Idempotency | None], Awaitable[T]],
    ) -> T:
        """``work`` stores its answer (``answer_of``) with its change, atomically."""
        if key is None:
            return await work(None)
        request = Idempotency(scope, key, fingerprint)
        try:
            stored = await self.keys.begin_idempotent(request)
        except IdempotencyConflict as exc:
            raise IdempotencyKeyInFlight(
                "a request with this Idempotency-Key is still running"
            ) from exc
        if stored is not None:
            if stored.fingerprint != fingerprint:
                raise IdempotencyKeyReused("this Idempotency-Key was used with another body")
            return msgspec.json.decode(stored.body, type=answer_type)
        try:
            return await work(request)
        except BaseException:
            if not await self._release(request):
                log.warning("could not release an idempotency key; retrying in the background")
                task = asyncio.create_task(self._keep_releasing(request), name="release-key")
                self._releasing.add(task)
                task.add_done_callback(self._releasing.discard)
            raise

    async def _release(self, request: Idempotency) -> bool:
        try:
            async with asyncio.timeout(FOLLOW_UP_SECONDS):
                await self.keys.release_idempotent(request)
        except Exception:
            return False
        return True

    async def _keep_releasing(self, request: Idempotency) -> None:
        for _ in range(RELEASE_RETRIES):
            await asyncio.sleep(RELEASE_RETRY_SECONDS)
            if await self._release(request):
                return
        log.warning("gave up releasing an idempotency key; its claim will expire")
