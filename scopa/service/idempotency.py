"""Running an idempotent request once per key, and keeping its answer secret.

A retry with the same body gets the first answer again, decoded from the bytes stored
with the change it made (so it is byte for byte what the client first got); a failure
lets go of the key, as failed answers are not kept.

The Idempotency-Key is the secret that fetches an answer again, and the answers of create
and join hold seat tokens: so the store never sees the key. It gets a hash of the key
under the scope (what the row is found by), the body's fingerprint as a hash keyed by the
key, and the answer sealed (AES-GCM) under a key derived from it, all from one HKDF over
the client's key. Whoever holds only the database learns no answer; whoever sends the key
and an equal body gets the answer, as the contract says. Every keyed answer goes this
way, a move's too: one mechanism, for some 20 to 50 microseconds per keyed request.

A key belongs to its caller: the scope names the route and who calls it
(``caller_scope``), so the same key from anyone else is another row, under secrets
derived apart, and is simply a fresh request. A key learned (from a log, a shared
screen) is no way into another's answer and the secrets it holds.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from scopa.service.errors import IdempotencyKeyInFlight, IdempotencyKeyReused
from scopa.service.ids import token_hash
from scopa.service.ports import (
    Answer,
    Idempotency,
    IdempotencyConflict,
    IdempotencyKeys,
    Player,
    StoredAnswer,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

# Letting go of a failed request's key may fail too (the database may be what failed):
# the answer waits on it no longer than this.
FOLLOW_UP_SECONDS = 1.0
# A key that could not be let go of is let go of once the database is back, so that a
# retry is not told for the claim's whole lifetime that the first request still runs.
RELEASE_RETRY_SECONDS = 1.0
RELEASE_RETRIES = 60

# HKDF's info is this, then the scope: a key sent to two scopes derives unrelated secrets.
_INFO = b"scopa idempotency v1 scope="
_PART = 32  # bytes of each derived secret: the row's key, the fingerprint's, the cipher's
_NONCE = 12  # AES-GCM's


# The address of a request made in this process (a test, the command line), not over HTTP.
LOCAL = "local"


def caller_scope(
    route: str, *, player: Player | None = None, token: str | None = None, address: str = LOCAL
) -> str:
    """Whose answer a key fetches on ``route``: the player's, for a player token (any of
    its tokens replays it); else the bearer token's (by its hash); else, for an anonymous
    request, the client address's it came from."""
    if player is not None:
        return f"{route} player:{player.handle}"
    if token is not None:
        return f"{route} token:{token_hash(token)}"
    return f"{route} addr:{address}"


class Claim:
    """A keyed request as this process holds it. ``stored`` is all the store is told of
    it; the secrets that key its fingerprint and seal its answer are kept nowhere."""

    __slots__ = ("_cipher", "stored")

    def __init__(self, scope: str, key: str, fingerprint: str) -> None:
        derived = HKDF(SHA256(), 3 * _PART, None, _INFO + scope.encode()).derive(key.encode())
        row_key, fingerprint_key, sealing_key = (
            derived[i : i + _PART] for i in range(0, 3 * _PART, _PART)
        )
        self._cipher = AESGCM(sealing_key)
        # Keyed, as a plain hash of the body would confirm a guess of the body.
        keyed = hmac.digest(fingerprint_key, fingerprint.encode(), "sha256").hex()
        self.stored = Idempotency(scope, row_key.hex(), keyed)

    def seal(self, body: bytes) -> bytes:
        nonce = os.urandom(_NONCE)
        return nonce + self._cipher.encrypt(nonce, body, None)

    def open(self, sealed: bytes) -> bytes:
        """The answer as first encoded (``InvalidTag`` if the stored bytes were altered)."""
        return self._cipher.decrypt(sealed[:_NONCE], sealed[_NONCE:], None)


def answer_of(claim: Claim | None, body: msgspec.Struct) -> Answer | None:
    """What a change keeps for its request, if it has a key: its answer, sealed."""
    if claim is None:
        return None
    sealed = claim.seal(msgspec.json.encode(body))
    return claim.stored, StoredAnswer(claim.stored.fingerprint, sealed)


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
        work: Callable[[Claim | None], Awaitable[T]],
    ) -> T:
        """``work`` stores its answer (``answer_of``) with its change, atomically."""
        if key is None:
            return await work(None)
        claim = Claim(scope, key, fingerprint)
        request = claim.stored
        try:
            stored = await self.keys.begin_idempotent(request)
        except IdempotencyConflict as exc:
            raise IdempotencyKeyInFlight(
                "a request with this Idempotency-Key is still running"
            ) from exc
        if stored is not None:
            if stored.fingerprint != request.fingerprint:
                raise IdempotencyKeyReused("this Idempotency-Key was used with another body")
            return msgspec.json.decode(claim.open(stored.body), type=answer_type)
        try:
            return await work(claim)
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
