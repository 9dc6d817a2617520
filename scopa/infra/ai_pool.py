"""The AI's decisions, off the event loop: ``domain.ai.decide`` in a pool of processes.

``PooledAi`` is the service's ``AiPlayer``. It hands the pool no more decisions than it
has processes, so the next one to start is chosen here, most urgent first (docs/api.md,
"Order of AI work"): an AI's turn where a human waits, then a human seat's hint or
autoplay, then a match of AI seats only, then the coach's reviews. A decision still
waiting for a process is dropped when its caller goes (a hint whose client left costs
nothing).

A pool whose process died (SIGKILL, the OOM killer) is broken for good
(``BrokenProcessPool``): it is replaced by a new one, noticed by the decision that meets
it or by a check twice a second, and the decision is tried once more on the new pool.
Until the new pool is up, ``missing`` is true and the observer is told. Once the pool is
closing, a broken pool is no longer replaced.

The pool's processes end with the server whatever ends it (``infra.parent_death``): the
fork server when the server does, each worker when the fork server does.

A seeded match's decision reads no clock: the expert searches a fixed number of sampled
deals (``SEEDED_SAMPLES``, by the deal's kind), so the same match gets the same moves on
every run and machine however loaded. Any other decision samples until its time budget is
spent.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import multiprocessing.forkserver
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, TypeVar

from scopa.domain.ai import LEVELS, decide
from scopa.domain.ai.review import Review, review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.infra.ai_turns import has_human

log = logging.getLogger(__name__)
T = TypeVar("T")

# How often an idle pool is checked for a dead process.
CHECK_SECONDS = 0.5
# docs/api.md: a decision overruns its budget by at most this; more counts as a timeout.
OVERRUN_SECONDS = 0.020
# The order of AI work, most urgent first.
HUMAN_WAITS, FOR_A_HUMAN_SEAT, AI_ONLY, REVIEW = 0, 1, 2, 3
# The expert's fixed search in a seeded match, by the deal's kind: measured by ``python -m
# bench.ai`` (``--deal scopone``) to stay inside the default 100 ms budget on one core
# (docs/ai.md), its slowest decision included. A Scopone world holds ten-card hands and
# costs many times a Scopa one.
SEEDED_SAMPLES = {"scopa": 32, "scopone": 6}


def urgency(state: MatchState, seat: int) -> int:
    """How soon the decision for ``seat`` is wanted: an AI seat where a human waits on it,
    a human seat's own (a hint, an autoplay), or a match without humans."""
    if state.seats[seat].kind != "ai":
        return FOR_A_HUMAN_SEAT
    return HUMAN_WAITS if has_human(state) else AI_ONLY


def _decide(
    state: MatchState, seat: int, level: str, seed: int, budget_ms: float
) -> tuple[Move, str, float]:  # runs in a worker: module level, so it pickles
    started = time.perf_counter()
    if state.seeded:
        samples = SEEDED_SAMPLES[state.rules.deal]
        move, reason = decide(state, seat, level, seed, samples=samples)
    else:
        move, reason = decide(
            state, seat, level, seed, budget_ms=budget_ms, clock=time.perf_counter
        )
    return move, reason, time.perf_counter() - started


def _ready() -> bool:
    return True


def make_executor(workers: int) -> Executor:
    """Worker processes keep a search off the GIL; 0 workers means a thread, for tests and
    hosts where processes cannot be started."""
    if workers <= 0:
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="scopa-ai")
    # forkserver: forking a process that runs an event loop and driver threads is unsafe.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", "scopa.infra.fork_server_start"])
    # Started here, not by the first decision: its parent-death signal is tied to the
    # thread that starts it, and this is the one running the event loop (a pool replaced
    # after a fork server died starts a new one from here too).
    multiprocessing.forkserver.ensure_running()
    return ProcessPoolExecutor(workers, mp_context=context)


class AiObserver(Protocol):
    """Told of the pool's work, for the metrics; each call quick and never failing."""

    def decided(self, level: str, seconds: float, overran: bool) -> None: ...

    def pool_missing(self, missing: bool) -> None:
        """The pool broke (True) or its replacement is up (False)."""


class _Unobserved:
    def decided(self, level: str, seconds: float, overran: bool) -> None:
        pass

    def pool_missing(self, missing: bool) -> None:
        pass


class PriorityGate:
    """At most ``slots`` holders at once; waiters let in by urgency, then first come."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @contextlib.asynccontextmanager
    async def slot(self, urgency: int) -> AsyncIterator[None]:
        # Free slots mean nobody waits: a slot is handed to a waiter before it is freed.
        if self._free > 0:
            self._free -= 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (urgency, next(self._order), turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # let in just as its caller went: pass it on
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # a cancelled waiter is skipped
                turn.set_result(None)
                return
        self._free += 1

    @property
    def waiting(self) -> int:
        return sum(not turn.done() for _, _, turn in self._waiting)


async def _uncancelled(running: asyncio.Future[T]) -> T:
    """``running``'s result; cancelled, the caller still waits for its end, as its process
    decides on regardless and is free only then."""
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await asyncio.wait((running,))
        if not running.cancelled():
            running.exception()  # seen: nobody is left to want it
        raise


class PooledAi:
    """``domain.ai.decide`` in ``workers`` processes (0: one thread), ``budget_ms`` each
    (a seeded match's decisions a fixed search instead)."""

    levels: tuple[str, ...] = LEVELS

    def __init__(
        self,
        workers: int,
        budget_ms: float,
        observer: AiObserver | None = None,
        make: Callable[[int], Executor] = make_executor,
    ) -> None:
        self.workers = workers
        self.budget_ms = budget_ms
        self.observer = observer or _Unobserved()
        self._make = make
        self.executor = make(workers)
        self._gate = PriorityGate(max(workers, 1))
        self._replacing = asyncio.Lock()
        self._closing = False
        self.missing = False
        self._checker: asyncio.Task[None] | None = None
        # Awaited as the pool goes missing and comes back (the heartbeat tells the store).
        self.on_missing: Callable[[bool], Awaitable[None]] | None = None

    @property
    def capacity(self) -> int:
        """Decisions it can make at once now: 0 while the pool is being replaced."""
        return 0 if self.missing else max(self.workers, 1)

    async def warm_up(self) -> None:
        """Start every process (and its imports) before the first decision needs one, and
        the check for a dead process."""
        await self._warm(self.executor)
        if self._checker is None:
            self._checker = asyncio.create_task(self._check(), name="ai-pool-check")

    async def _warm(self, executor: Executor) -> None:
        loop = asyncio.get_running_loop()
        # Submitted together, so the pool starts one process for each.
        calls = [loop.run_in_executor(executor, _ready) for _ in range(max(self.workers, 1))]
        await asyncio.gather(*calls)

    async def close(self) -> None:
        self._closing = True
        if self._checker is not None:
            self._checker.cancel()
            await asyncio.gather(self._checker, return_exceptions=True)
            self._checker = None
        # A replacement under way finishes first, so that the pool shut down below is the
        # last one started.
        async with self._replacing:
            pass
        # Waiting for the processes to end releases the pool's semaphores: uvicorn ends
        # the process by re-raising SIGTERM, so no exit handler would unlink them (the
        # "leaked semaphore" warning), and processes not joined outlive the server.
        await asyncio.to_thread(self.executor.shutdown, wait=True, cancel_futures=True)

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        move, reason, seconds = await self._run(
            urgency(state, seat), _decide, state, seat, level, seed, self.budget_ms
        )
        overran = seconds > self.budget_ms / 1000 + OVERRUN_SECONDS
        self.observer.decided(level, seconds, overran)
        return move, reason

    async def review(self, initial: MatchState, events: Sequence[StoredEvent], seat: int) -> Review:
        return await self._run(REVIEW, review, initial, tuple(events), seat)

    async def _run(self, urgency: int, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in the pool once a slot comes to ``urgency``; on a pool found
        broken, once more on its replacement."""
        loop = asyncio.get_running_loop()
        async with self._gate.slot(urgency):
            for last in (False, True):
                executor = self.executor
                try:
                    return await _uncancelled(loop.run_in_executor(executor, work, *args))
                except BrokenProcessPool:
                    await self._replace(executor)
                    if last:
                        raise
        raise AssertionError("unreachable")

    async def _check(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            executor = self.executor
            try:
                # A broken pool refuses at once; a sound one runs this trivial call.
                executor.submit(_ready)
            except BrokenProcessPool:
                await self._replace(executor)
            except RuntimeError:
                return  # shut down

    async def _replace(self, broken: Executor) -> None:
        async with self._replacing:
            if self.executor is not broken:
                return  # another decision replaced it already
            if self._closing:
                # A stopping server (its workers had the same SIGTERM) starts no new pool.
                raise BrokenProcessPool("the AI pool is closing")
            log.error("the AI pool lost a process; starting a new pool")
            await self._set_missing(True)
            broken.shutdown(wait=False, cancel_futures=True)
            while True:
                fresh = self._make(self.workers)
                try:
                    await self._warm(fresh)
                except BaseException as error:
                    # Cancelled or failed, a pool half started is not left running.
                    fresh.shutdown(wait=False, cancel_futures=True)
                    if self._closing or not isinstance(error, Exception):
                        raise
                    log.exception("the new AI pool failed to start; trying again")
                    await asyncio.sleep(CHECK_SECONDS)
                    continue
                break
            self.executor = fresh
            await self._set_missing(False)
            log.info("the new AI pool is up")

    async def _set_missing(self, missing: bool) -> None:
        self.missing = missing
        self.observer.pool_missing(missing)
        if self.on_missing is not None:
            await self.on_missing(missing)
