"""AI seats playing by themselves, off the request path: the pending turns of the queue
(``infra.ai_turns``) claimed and played, by ``scopa serve`` itself or by ``scopa worker``
processes.

``AiRunner`` claims turns while it has a free slot (as many as its AI pool decides at
once, so a claimed turn is decided at once), and plays each, renewing its lease while
it does. It claims again as soon as a slot frees, when told of a change (``kick``: a
move in this process, or a NOTIFY from another), and otherwise every ``poll_seconds``,
which is also when a paced AI-only match's next turn comes ready. Nothing is kept
between claims: a turn left by a process that died is claimed by another once its lease
lapses, within ``lease_seconds`` however long a decision takes. A second runner claims
the reviews asked of the workers (``infra.reviews``) the same way.

``Heartbeat`` tells the store, every few seconds and whenever it changes, how many
decisions this process can make at once, for ``/ready`` and the metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from scopa.infra.quiet import QuietRetries

log = logging.getLogger(__name__)

# What a runner claims: a match's id for its AI turn, a match and seat for a review.
K = TypeVar("K", bound=Hashable)
Claim = Callable[[float, str, bool], Awaitable[K | None]]
Renew = Callable[[K, float, str], Awaitable[None]]

POLL_SECONDS = 0.25
# A claimed turn is another's after this long without a renewal (one every third of it):
# a killed runner's turn is played by another within seconds.
LEASE_SECONDS = 2.0
BEAT_SECONDS = 2.0


async def _until(event: asyncio.Event, seconds: float) -> None:
    """Until ``event`` is set or ``seconds`` pass. Not ``wait_for``: on Python 3.11 it can
    swallow a cancellation that lands as the event is set, and the task never stops."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()


class AiRunner(Generic[K]):
    def __init__(
        self,
        slots: int = 1,
        poll_seconds: float = POLL_SECONDS,
        lease_seconds: float = LEASE_SECONDS,
        name: str = "",
        what: str = "AI turn",
    ) -> None:
        self.slots = max(slots, 1)
        self.what = what  # in log lines: what is claimed
        self.poll_seconds = poll_seconds
        self.lease_seconds = lease_seconds
        self.name = name or worker_id()
        self._play: Callable[[K], Awaitable[object]] | None = None
        self._claim: Claim[K] | None = None
        self._renew: Renew[K] | None = None
        self._tasks: dict[K, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._claimer: asyncio.Task[None] | None = None

    def kick(self, match_id: str | None = None) -> None:
        """Something changed and an AI may be to play: claim again now."""
        self._wake.set()

    async def start(
        self,
        play: Callable[[K], Awaitable[object]],
        claim: Claim[K],
        renew: Renew[K] | None = None,
    ) -> None:
        """``claim(lease_seconds, name, human_only)`` leases a pending turn's match to this
        runner (only a humans' match's when ``human_only``);
        ``play`` plays it; ``renew(match, lease_seconds, name)`` extends the lease."""
        self._play = play
        self._claim = claim
        self._renew = renew
        self._claimer = asyncio.create_task(self._claim_forever(), name=f"{self.what} claims")

    async def stop(self) -> None:
        tasks = [t for t in (self._claimer, *self._tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._play = self._claim = self._renew = self._claimer = None
        self._tasks.clear()

    async def _claim_forever(self) -> None:
        retries = QuietRetries(
            log,
            f"{self.what}s cannot be claimed; retrying quietly",
            f"{self.what}s are claimed again",
        )
        while self._claim is not None:
            self._wake.clear()
            try:
                while True:
                    # Full, it still takes a humans' match's turn: the turns in hand may
                    # be waiting behind hints for the pool, and a human must not wait
                    # behind them (the pool itself lets the human's turn in first).
                    full = len(self._tasks) >= self.slots
                    match_id = await self._claim(self.lease_seconds, self.name, full)
                    if match_id is None:
                        break
                    # Leased again while this process still plays it: the lease is renewed.
                    if match_id not in self._tasks:
                        self._tasks[match_id] = asyncio.create_task(
                            self._run(match_id), name=f"ai:{match_id}"
                        )
            except asyncio.CancelledError:
                raise
            except Exception:
                retries.failed()
            else:
                retries.succeeded()
            await _until(self._wake, self.poll_seconds)

    async def _run(self, match_id: K) -> None:
        renewing = asyncio.create_task(self._renew_forever(match_id), name=f"lease:{match_id}")
        try:
            if self._play is not None:
                await self._play(match_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            # The lease lapses and the turn is claimed again, once the cause is gone.
            log.exception("%s of %s failed", self.what, match_id)
        finally:
            renewing.cancel()
            self._tasks.pop(match_id, None)
            self._wake.set()  # a slot is free

    async def _renew_forever(self, match_id: K) -> None:
        while self._renew is not None:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self._renew(match_id, self.lease_seconds, self.name)
            except asyncio.CancelledError:
                raise
            except Exception:
                # Lapsed, another may play the turn too: the store keeps one of the moves.
                log.debug("the lease on match %s was not renewed", match_id, exc_info=True)


def worker_id() -> str:
    """Names this process among those playing AI turns (in logs and ``ai_workers``)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Heartbeat:
    """This process's capacity, told to the store every ``every`` seconds and at ``now``;
    forgotten by the store at ``stop``."""

    def __init__(
        self,
        beat: Callable[[str, int], Awaitable[None]],
        leave: Callable[[str], Awaitable[None]],
        capacity: Callable[[], int],
        name: str,
        every: float = BEAT_SECONDS,
    ) -> None:
        self.id = name
        self._beat = beat
        self._leave = leave
        self._capacity = capacity
        self.every = every
        self._task: asyncio.Task[None] | None = None

    async def now(self, *_: object) -> None:
        """Tell the store at once (the capacity changed)."""
        await self._beat_once()

    async def start(self) -> None:
        # The first beat before start-up ends: a process is ready with its capacity told.
        await self._beat_once()
        self._task = asyncio.create_task(self._beat_forever(), name="ai-heartbeat")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        try:
            await self._leave(self.id)
        except Exception:
            log.warning("could not say this AI process stops; it is forgotten in seconds")

    async def _beat_once(self) -> None:
        try:
            await self._beat(self.id, self._capacity())
        except asyncio.CancelledError:
            raise
        except Exception:
            # The database is down: /ready says so itself, and the next beat retries.
            log.debug("AI heartbeat failed", exc_info=True)

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self._beat_once()
