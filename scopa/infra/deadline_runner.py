"""Matches whose moment has passed (an expiry, a turn's deadline, abandonment), acted on
by whichever process finds them first.

Every ``poll_seconds`` the runner asks the store for the matches past their ``due_at``
and has the service enforce each, a few at a time and never one match twice at once in
this process; through a backlog (after a restart, say) it asks again as soon as one is
done. Nothing is kept in memory between polls, so a moment that passed while no
process ran is found by the first poll of the next one. Processes sharing a database race
through the store's versions: one change per moment is stored, and the others reload and
find it gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from scopa.infra.quiet import QuietRetries

log = logging.getLogger(__name__)

# docs/api.md allows 2 s from a moment to its change: half a second to notice, the rest to act
# (an autoplay waits on an AI decision).
POLL_SECONDS = 0.5
# Matches handled at once by one process; the rest wait for the next poll.
CONCURRENCY = 8


class DeadlineRunner:
    def __init__(
        self,
        poll_seconds: float = POLL_SECONDS,
        concurrency: int = CONCURRENCY,
        on_poll: Callable[[], None] | None = None,
    ) -> None:
        """``on_poll`` is told of each poll that got its answer (for the metrics)."""
        self.poll_seconds = poll_seconds
        self.concurrency = concurrency
        self._on_poll = on_poll
        self._enforce: Callable[[str], Awaitable[None]] | None = None
        self._due: Callable[[int], Awaitable[list[str]]] | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._poller: asyncio.Task[None] | None = None
        self._done = asyncio.Event()  # a match was enforced: its slot is free

    async def start(
        self,
        enforce: Callable[[str], Awaitable[None]],
        due: Callable[[int], Awaitable[list[str]]],
    ) -> None:
        self._enforce = enforce
        self._due = due
        self._poller = asyncio.create_task(self._poll(), name="deadlines")

    async def stop(self) -> None:
        tasks = [t for t in (self._poller, *self._tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._enforce = self._due = self._poller = None
        self._tasks.clear()

    async def _poll(self) -> None:
        retries = QuietRetries(
            log, "deadline polls failing; retrying quietly", "deadline polls answer again"
        )
        while self._due is not None:
            self._done.clear()
            try:
                # Asking for as many as there are free slots, plus those already in hand.
                for match_id in await self._due(self.concurrency + len(self._tasks)):
                    if len(self._tasks) >= self.concurrency:
                        break
                    if match_id not in self._tasks:
                        task = asyncio.create_task(self._run(match_id), name=f"due:{match_id}")
                        self._tasks[match_id] = task
            except asyncio.CancelledError:
                raise
            except Exception:
                retries.failed()
            else:
                retries.succeeded()
                if self._on_poll is not None:
                    self._on_poll()
            await self._pause(full=len(self._tasks) >= self.concurrency)

    async def _pause(self, *, full: bool) -> None:
        """Until the next poll: ``poll_seconds``, or less when every slot is taken (more may
        be due) and one frees."""
        if not full:
            await asyncio.sleep(self.poll_seconds)
            return
        # Not wait_for: on Python 3.11 it can swallow a cancellation that lands as the
        # event is set, and stop() then waits on this task for ever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.poll_seconds):
                await self._done.wait()

    async def _run(self, match_id: str) -> None:
        try:
            if self._enforce is not None:
                await self._enforce(match_id)
            # Not after a failure: a match that keeps failing waits for the next poll.
            self._done.set()
        except asyncio.CancelledError:
            raise
        except Exception:
            # The next poll finds the match again once the cause (often the database) is gone.
            log.exception("the moment of match %s could not be enforced", match_id)
        finally:
            self._tasks.pop(match_id, None)
