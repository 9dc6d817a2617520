"""The composition root: settings in, a served app out, with its adapters wired.

Nothing connects here: the engine and the event bus reach the database on first use and
at start-up, so building the app (for ``scopa openapi`` too) needs no database.
"""

from __future__ import annotations

import asyncio
import logging
import time

from litestar import Litestar
from sqlalchemy.engine import make_url

from api.app import create_app
from api.metrics import GameMetrics
from infra.ai_runner import AiRunner, PooledAi, make_executor
from infra.db import DatabaseUnavailable, make_engine
from infra.notify import CHANNEL, LocalEventBus, PostgresEventBus
from infra.repositories import SqlMatchStore
from infra.settings import Settings
from service.matches import MatchService

log = logging.getLogger(__name__)

# API.md keeps idempotency keys at least 24 hours; the purge leaves a margin on top.
KEY_LIFETIME_SECONDS = 25 * 3600
PURGE_EVERY_SECONDS = 3600.0


def build_app(settings: Settings) -> Litestar:
    engine = make_engine(settings.database_url)
    postgres = make_url(settings.database_url).get_backend_name() == "postgresql"
    store = SqlMatchStore(engine, notify=CHANNEL if postgres else None)
    bus = (
        PostgresEventBus(settings.database_url, store_notifies=True)
        if postgres
        else LocalEventBus()
    )
    executor = make_executor(settings.ai_workers)
    ai = PooledAi(executor, settings.ai_budget_ms)
    runner = AiRunner()
    service = MatchService(
        store,
        bus,
        reads=store,
        keys=store,
        ai=ai,
        on_change=runner.kick,
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
        # Warming up in the background: start-up does not wait for the worker processes.
        background.append(asyncio.create_task(ai.warm_up(), name="ai-warm-up"))
        await runner.start(service.advance_ai, service.ai_turns)
        background.append(asyncio.create_task(purge_keys(), name="purge-keys"))

    async def stop() -> None:
        await runner.stop()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        executor.shutdown(wait=False, cancel_futures=True)
        if isinstance(bus, PostgresEventBus):
            await bus.stop()
        await engine.dispose()

    return create_app(
        settings,
        service,
        unavailable=(DatabaseUnavailable,),
        on_startup=[start],
        on_shutdown=[stop],
    )
