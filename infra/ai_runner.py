"""AI seats playing by themselves, off the request path.

``PooledAi`` runs ``domain.ai.decide`` in a worker pool so the event loop never blocks on
a search. ``AiRunner`` schedules the matches whose seat to play is an AI: on every change
the service reports, at start-up (matches left waiting by a previous process) and on a
periodic sweep, so no match is ever stuck on an AI's turn. Each move is stored only at
the version it was decided on; several processes racing for one match lose nothing.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from domain.ai import LEVELS, decide
from domain.ai.review import Review, review
from domain.events import StoredEvent
from domain.match import MatchState
from domain.moves import Move

log = logging.getLogger(__name__)

SWEEP_SECONDS = 5.0


def _decide(
    state: MatchState, seat: int, level: str, seed: int, budget_ms: float
) -> tuple[Move, str]:  # runs in a worker: module level, so it pickles
    return decide(state, seat, level, seed, budget_ms=budget_ms, clock=time.perf_counter)


def _ready() -> bool:
    return True


def make_executor(workers: int) -> Executor:
    """Worker processes keep a search off the GIL; 0 workers means a thread, for tests and
    hosts where processes cannot be started."""
    if workers <= 0:
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="scopa-ai")
    # forkserver: forking a process that runs an event loop and driver threads is unsafe.
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"))


class PooledAi:
    """The service's ``AiPlayer``: ``domain.ai.decide`` in ``executor``."""

    levels: tuple[str, ...] = LEVELS

    def __init__(self, executor: Executor, budget_ms: float) -> None:
        self.executor = executor
        self.budget_ms = budget_ms

    async def warm_up(self) -> None:
        """Start the workers (and their imports) before the first decision needs them."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.executor, _ready)

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.executor, _decide, state, seat, level, seed, self.budget_ms
        )

    async def review(self, initial: MatchState, events: Sequence[StoredEvent], seat: int) -> Review:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, review, initial, tuple(events), seat)


class AiRunner:
    """One task per match with an AI to move, in this process."""

    def __init__(self, sweep_seconds: float = SWEEP_SECONDS) -> None:
        self.sweep_seconds = sweep_seconds
        self._advance: Callable[[str], Awaitable[None]] | None = None
        self._pending: Callable[[], Awaitable[list[str]]] | None = None
        self._tasks: dict[str, asyncio.Task[None]] = {}
        # Kicked while its task runs: the task looks once more before it ends.
        self._again: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None

    def kick(self, match_id: str) -> None:
        """The match changed and an AI may be to play: make sure a task looks at it."""
        if self._advance is None:
            return
        if match_id in self._tasks:
            self._again.add(match_id)
            return
        self._tasks[match_id] = asyncio.create_task(self._run(match_id), name=f"ai:{match_id}")

    async def start(
        self,
        advance: Callable[[str], Awaitable[None]],
        pending: Callable[[], Awaitable[list[str]]],
    ) -> None:
        self._advance = advance
        self._pending = pending
        self._sweeper = asyncio.create_task(self._sweep(), name="ai-sweep")

    async def stop(self) -> None:
        tasks = [t for t in (self._sweeper, *self._tasks.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._advance = self._pending = self._sweeper = None
        self._tasks.clear()

    async def _run(self, match_id: str) -> None:
        try:
            while self._advance is not None:
                self._again.discard(match_id)
                await self._advance(match_id)
                if match_id not in self._again:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:
            # The sweep picks the match up again once the cause (often the database) is gone.
            log.exception("AI turn of match %s failed", match_id)
        finally:
            self._tasks.pop(match_id, None)
            self._again.discard(match_id)

    async def _sweep(self) -> None:
        """At start-up, then every ``sweep_seconds``: every match waiting on an AI."""
        while self._pending is not None:
            try:
                for match_id in await self._pending():
                    self.kick(match_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning(
                    "AI sweep failed; retrying in %.0f s", self.sweep_seconds, exc_info=True
                )
            await asyncio.sleep(self.sweep_seconds)
