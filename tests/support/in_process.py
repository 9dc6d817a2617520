"""The app served in process (httpx over ASGI) on the test's own event loop, over the
in-memory fakes or a real store, its AI seats played at once by the first legal move.

``serve(None)`` is the fakes; ``serve(url)`` is SQLite or Postgres at ``url`` (migrated).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.api.app import ScopaApp, create_app
from scopa.infra.ai_runner import AiRunner
from scopa.infra.db import DatabaseUnavailable, make_engine
from scopa.infra.notify import LocalEventBus
from scopa.infra.settings import Settings
from scopa.infra.stores import SqlStores, sql_stores
from scopa.service.ports import KeptReviews, MatchReads, MatchRepository
from scopa.service.services import Services
from scopa.wiring import services_over
from tests.fakes import FakeStore, FirstMoveAi, StoreDown, fake_service


@dataclass
class InProcess:
    client: httpx.AsyncClient
    store: FakeStore | SqlStores
    engine: AsyncEngine | None  # None over the fakes
    service: Services  # for a test to enforce a match's passed moment itself
    app: ScopaApp

    @property
    def matches(self) -> MatchRepository:
        return self.store if isinstance(self.store, FakeStore) else self.store.matches

    @property
    def reads(self) -> MatchReads:
        return self.store.reads

    @property
    def kept(self) -> KeptReviews:
        return self.store.reads if isinstance(self.store, FakeStore) else self.store.reviews

    def client_at(self, host: str) -> httpx.AsyncClient:
        """Another client of the same app, calling from ``host`` (close it when done)."""
        transport = httpx.ASGITransport(app=self.app, client=(host, 50000))
        return httpx.AsyncClient(transport=transport, base_url="http://test")

    async def match_count(self) -> int:
        if isinstance(self.store, FakeStore):
            return len(self.store.records)
        assert self.engine is not None
        async with self.engine.connect() as conn:
            return int((await conn.execute(text("SELECT count(*) FROM matches"))).scalar_one())


@asynccontextmanager
async def serve(
    url: str | None, *, stream_seconds: float = 0.5, clock: Callable[[], float] = time.time
) -> AsyncIterator[InProcess]:
    """``clock``: the service's and the store's, so a test can move a match past its
    moments, or a challenge past its expiry."""
    engine = make_engine(url) if url is not None else None
    runner: AiRunner[str] = AiRunner(poll_seconds=0.2)
    store: FakeStore | SqlStores
    service: Services
    if engine is not None:
        store = sql_stores(engine, clock=clock)
        service = services_over(
            store, LocalEventBus(), ai=FirstMoveAi(), on_change=runner.kick, clock=clock
        )
    else:
        store = FakeStore(clock=clock)
        service = fake_service(store, ai=FirstMoveAi(), on_change=runner.kick, clock=clock)
    app = create_app(
        Settings(stream_seconds=stream_seconds).without_limits(),
        service,
        unavailable=(StoreDown, DatabaseUnavailable),
    )
    claim = store.claim_ai_turn if isinstance(store, FakeStore) else store.ai_turns.claim_ai_turn
    await runner.start(service.ai_work.play_ai_turn, claim)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield InProcess(client, store, engine, service, app)
    finally:
        await runner.stop()
        if isinstance(store, SqlStores):
            await store.settle()
        if engine is not None:
            await engine.dispose()
