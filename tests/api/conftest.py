"""The app over in-memory fakes of the store and the bus, with a fast stand-in AI."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from scopa.api.app import ScopaApp, create_app
from scopa.infra.ai_runner import AiRunner
from scopa.infra.settings import Settings
from scopa.service.services import Services
from tests.fakes import FakeCounts, FakeSlots, FakeStore, StoreDown
from tests.support.in_process import InProcess, serve


@pytest.fixture
def settings() -> Settings:
    return Settings(stream_seconds=3.0).without_limits()


@pytest.fixture
def runner(service: Services) -> AiRunner[str]:
    runner: AiRunner[str] = AiRunner(poll_seconds=0.2)
    service.changes.on_change = runner.kick
    return runner


@pytest.fixture
def app(settings: Settings, service: Services) -> ScopaApp:
    return create_app(
        settings, service, unavailable=(StoreDown,), counts=FakeCounts(), slots=FakeSlots()
    )


@pytest.fixture
async def client(
    app: ScopaApp, runner: AiRunner[str], service: Services, store: FakeStore
) -> AsyncIterator[httpx.AsyncClient]:
    """A client on the test's own event loop, so requests can overlap (Litestar's test
    client runs the app in a portal thread, one request at a time). The AI runner is
    started here, as the composition root's start-up hook does."""
    await runner.start(service.ai_work.play_ai_turn, store.claim_ai_turn)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            yield client
    finally:
        await runner.stop()


@pytest.fixture
async def stored(database_url: str) -> AsyncIterator[InProcess]:
    """The app over SQLite, then over Postgres (its AI the first legal move)."""
    async with serve(database_url) as served:
        yield served


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def module_app() -> AsyncIterator[InProcess]:
    """One app over the fakes for a whole module, on the module's event loop (its tests
    carry ``pytest.mark.asyncio(loop_scope="module")``): for modules whose tests each work
    on matches of their own and read nothing the others leave behind (no listing, no
    count). Building the app is most of what a small test costs."""
    async with serve(None, stream_seconds=0.5) as served:
        yield served
