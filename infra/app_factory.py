"""The composition root: settings in, a served app out, with its adapters wired.

Nothing connects here: the engine and the event bus reach the database on first use and
at start-up, so building the app (for ``scopa openapi`` too) needs no database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from litestar import Litestar
from sqlalchemy.engine import make_url

from api.app import create_app
from api.metrics import GameMetrics
from infra.ai_runner import AiRunner, PooledAi, make_executor
from infra.db import DatabaseUnavailable, make_engine
from infra.deadline_runner import DeadlineRunner
from infra.limits import SqlLimits
from infra.notify import CHANNEL, LocalEventBus, PostgresEventBus
from infra.repositories import SqlMatchStore
from infra.settings import Settings
from service.lifecycle import Lifecycle
from service.matches import MatchService

log = logging.getLogger(__name__)

# API.md keeps idempotency keys at least 24 hours; the purge leaves a margin on top.
KEY_LIFETIME_SECONDS = 25 * 3600
PURGE_EVERY_SECONDS = 3600.0


def build_app(settings: Settings, *, clock: Callable[[], float] = time.time) -> Litestar:
    """The app as ``scopa serve`` serves it; ``clock`` (unix seconds) is the limits'."""
    engine = make_engine(settings.database_url)
    postgres = make_url(settings.database_url).get_backend_name() == "postgresql"
    store = SqlMatchStore(engine, notify=CHANNEL if postgres else None)
    limits = SqlLimits(engine, clock=clock)
    bus = PostgresEventBus(settings.database_url) if postgres else LocalEventBus()
    executor = make_executor(settings.ai_workers)
    ai = PooledAi(executor, settings.ai_budget_ms)
    runner = AiRunner()
    deadlines = DeadlineRunner()
    service = MatchService(
        store,
        bus,
        reads=store,
        keys=store,
        ai=ai,
        on_change=runner.kick,
        lifecycle=Lifecycle(settings.waiting_ttl_seconds, settings.idle_ttl_seconds),
        observer=GameMetrics(),
    )
    background: list[asyncio.Task[None]] = []

    async def purge_keys() -> None:
        while True:
            try:
                purged = await store.purge_idempotency(time.time() - KEY_LIFETIME_SECONDS)
                log.info("purged %d idempotency keys", purged)
            except DatabaseUnavailable:
                log.warning("idempotency purge skipped: the database does not answer")
            await asyncio.sleep(PURGE_EVERY_SECONDS)

    async def start() -> None:
        if isinstance(bus, PostgresEventBus):
            await bus.start()
        # Ready means able to do this process's work: the AI workers are up before the
        # runners count on them, so what came due while no process ran (an AI's turn, an
        # autoplay) is played within moments of /ready, not after a worker's cold start.
        await ai.warm_up()
        await runner.start(service.advance_ai, service.ai_turns)
        await deadlines.start(service.enforce, service.due)
        background.append(asyncio.create_task(purge_keys(), name="purge-keys"))
        background.append(asyncio.create_task(limits.keep_renewing(), name="renew-leases"))

    async def stop() -> None:
        await deadlines.stop()
        await runner.stop()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        # Waiting for the workers to end releases the pool's semaphores: uvicorn ends
        # the process by re-raising SIGTERM, so no exit handler would unlink them (the
        # "leaked semaphore" warning), and workers not joined outlive the server.
        await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
        if isinstance(bus, PostgresEventBus):
            await bus.stop()
        await store.settle()
        await limits.settle()
        await engine.dispose()

    return create_app(
        settings,
        service,
        unavailable=(DatabaseUnavailable,),
        counts=limits,
        slots=limits,
        clock=clock,
        on_startup=[start],
        on_shutdown=[stop],
    )
