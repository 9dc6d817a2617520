"""The composition root: settings in, a served app (or an AI worker) out, with its
adapters wired.

Nothing connects here: the engine and the event bus reach the database on first use and
at start-up, so building the app (for ``scopa openapi`` too) needs no database.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.api.app import ScopaApp, create_app
from scopa.api.metrics import AiMetrics, GameMetrics, deadlines_polled
from scopa.infra.ai_pool import PooledAi
from scopa.infra.ai_runner import AiRunner, Heartbeat
from scopa.infra.db import DatabaseUnavailable, make_engine
from scopa.infra.deadline_runner import DeadlineRunner
from scopa.infra.limits import SqlLimits
from scopa.infra.notify import CHANNEL, LocalEventBus, PostgresEventBus
from scopa.infra.settings import Settings
from scopa.infra.stores import SqlStores, sql_stores
from scopa.service.challenges import ChallengeLimits
from scopa.service.lifecycle import Lifecycle
from scopa.service.ports import EventBus
from scopa.service.services import Services, build_services

log = logging.getLogger(__name__)

# docs/api.md keeps idempotency keys at least 24 hours; the purge leaves a margin on top.
KEY_LIFETIME_SECONDS = 25 * 3600
PURGE_EVERY_SECONDS = 3600.0
# How often a process that runs AI looks for reviews asked of it (service.asked has how
# often the asker looks for the answer).
REVIEW_CLAIM_SECONDS = 1.0


@dataclass
class Parts:
    """The adapters and the service of one process, and its background work: the AI's
    turns, the reviews and hints asked of the workers and the matches' moments (``play``),
    which ``scopa serve`` runs unless SCOPA_AI_IN_PROCESS is off and ``scopa worker``
    always runs. A process that runs no AI has no AI pool (``ai`` None)."""

    engine: AsyncEngine
    stores: SqlStores
    bus: LocalEventBus
    ai: PooledAi | None
    service: Services
    runner: AiRunner[str]
    reviewer: AiRunner[tuple[str, int]]
    hinter: AiRunner[str]
    deadlines: DeadlineRunner
    heartbeat: Heartbeat
    playing: bool = False
    background: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self, *, play: bool) -> None:
        if isinstance(self.bus, PostgresEventBus):
            await self.bus.start()
        # Ready means able to do this process's work: the AI workers are up before the
        # runners count on them, so what came due while no process ran (an AI's turn, an
        # autoplay) is played within moments of /ready, not after a worker's cold start.
        if self.ai is not None:
            await self.ai.warm_up()
        if play:
            self.playing = True
            turns, reviews, hints = self.stores.ai_turns, self.stores.reviews, self.stores.hints
            await self.runner.start(
                self.service.ai_work.play_ai_turn, turns.claim_ai_turn, turns.renew_ai_turn
            )
            await self.reviewer.start(
                self.service.records.compute_review, reviews.claim_review, reviews.renew_review
            )
            await self.hinter.start(
                self.service.ai_work.compute_hint, hints.claim_hint, hints.renew_hint
            )
            await self.deadlines.start(self.service.moments.enforce, self.service.moments.due)
            await self.heartbeat.start()

    def every(self, seconds: float, name: str, work: Callable[[], Awaitable[None]]) -> None:
        async def forever() -> None:
            while True:
                await work()
                await asyncio.sleep(seconds)

        self.background.append(asyncio.create_task(forever(), name=name))

    async def stop(self, *settle: Callable[[], Awaitable[None]]) -> None:
        """Stop the background work, then wait for the store's abandoned calls and
        whatever ``settle`` names before the engine goes."""
        if self.playing:
            await self.deadlines.stop()
            await self.runner.stop()
            await self.reviewer.stop()
            await self.hinter.stop()
            await self.heartbeat.stop()
        for task in self.background:
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.ai is not None:
            await self.ai.close()
        if isinstance(self.bus, PostgresEventBus):
            await self.bus.stop()
        await self.stores.settle()
        for waiting in settle:
            await waiting()
        await self.engine.dispose()


def services_over(stores: SqlStores, bus: EventBus, **options: Any) -> Services:
    """The use cases over the SQL stores; ``options`` as ``build_services`` takes them."""
    return build_services(
        stores.matches,
        bus,
        reads=stores.reads,
        keys=stores.answers,
        turns=stores.ai_turns,
        kept=stores.reviews,
        players=stores.players,
        standings=stores.standings,
        challenges=stores.challenges,
        **options,
    )


def build_parts(settings: Settings, *, ai_here: bool = True) -> Parts:
    """The parts of a process that runs AI (``ai_here``: it computes its reviews and hints
    itself) or of an API process that runs none (it asks the workers for them)."""
    engine = make_engine(settings.database_url)
    postgres = make_url(settings.database_url).get_backend_name() == "postgresql"
    stores = sql_stores(
        engine,
        notify=CHANNEL if postgres else None,
        ai_only_pace=settings.ai_only_move_seconds,
    )
    ai = PooledAi(settings.ai_workers, settings.ai_budget_ms, AiMetrics()) if ai_here else None
    # As many turns at once as the pool decides: a claimed turn never waits on a process.
    runner: AiRunner[str] = AiRunner(slots=max(settings.ai_workers, 1))
    # One review at a time, last of the AI work (the pool lets every decision go first);
    # it takes seconds, so a claim a second is soon enough.
    reviewer: AiRunner[tuple[str, int]] = AiRunner(
        poll_seconds=REVIEW_CLAIM_SECONDS, name=runner.name, what="review"
    )
    # Hints come after the AI turns where a human waits: the pool lets those in first.
    hinter: AiRunner[str] = AiRunner(
        slots=max(settings.ai_workers, 1), name=runner.name, what="hint"
    )
    # A move stored by another process may leave an AI to play, and a hint asked for wants
    # deciding: their NOTIFY wakes the runner for it.
    bus = (
        PostgresEventBus(settings.database_url, heard=runner.kick, hinted=hinter.kick)
        if postgres
        else LocalEventBus()
    )
    service = services_over(
        stores,
        bus,
        ai=ai,
        review_queue=stores.reviews,
        hint_queue=stores.hints,
        on_change=runner.kick,
        lifecycle=Lifecycle(
            settings.waiting_ttl_seconds,
            settings.idle_ttl_seconds,
            settings.rated_idle_ttl_seconds,
        ),
        challenge_limits=ChallengeLimits(
            settings.challenges_per_minute, settings.challenges_pending
        ),
        observer=GameMetrics(),
    )
    turns = stores.ai_turns
    heartbeat = Heartbeat(
        turns.beat, turns.leave, lambda: ai.capacity if ai is not None else 0, runner.name
    )
    if ai is not None:
        ai.on_missing = heartbeat.now
    return Parts(
        engine,
        stores,
        bus,
        ai,
        service,
        runner,
        reviewer,
        hinter,
        DeadlineRunner(on_poll=deadlines_polled),
        heartbeat,
    )


def build_app(settings: Settings, *, clock: Callable[[], float] = time.time) -> ScopaApp:
    """The app as ``scopa serve`` serves it; ``clock`` (unix seconds) is the limits'."""
    parts = build_parts(settings, ai_here=settings.ai_in_process)
    stores = parts.stores
    limits = SqlLimits(parts.engine, clock=clock, lease_seconds=settings.stream_lease_seconds)

    async def purge_keys() -> None:
        try:
            purged = await stores.answers.purge_idempotency(time.time() - KEY_LIFETIME_SECONDS)
            lost = await stores.hints.purge_hints()
            log.info("purged %d idempotency keys and %d hints whose askers are gone", purged, lost)
        except DatabaseUnavailable:
            log.warning("idempotency purge skipped: the database does not answer")

    async def start() -> None:
        await parts.start(play=settings.ai_in_process)
        parts.every(PURGE_EVERY_SECONDS, "purge-keys", purge_keys)
        parts.background.append(asyncio.create_task(limits.keep_renewing(), name="renew-leases"))

    async def stop() -> None:
        await parts.stop(limits.settle)

    return create_app(
        settings,
        parts.service,
        unavailable=(DatabaseUnavailable,),
        counts=limits,
        slots=limits,
        clock=clock,
        on_startup=[start],
        on_shutdown=[stop],
    )
