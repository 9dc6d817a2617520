"""The app over in-memory fakes of the store and the bus, with a fast stand-in AI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.service import MatchService
from infra.ai_runner import AiRunner
from infra.settings import Settings
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, StoreDown


@pytest.fixture
def store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def bus() -> FakeBus:
    return FakeBus()


@pytest.fixture
def ai() -> FirstMoveAi:
    return FirstMoveAi()


@pytest.fixture
def settings() -> Settings:
    return Settings(rate_limit=0, stream_seconds=3.0)


@pytest.fixture
def service(store: FakeStore, bus: FakeBus, ai: FirstMoveAi) -> MatchService:
    return MatchService(store, bus, ai=ai)


@pytest.fixture
def app(settings: Settings, service: MatchService, store: FakeStore) -> Litestar:
    runner = AiRunner(sweep_seconds=0.2)
    service.on_change = runner.kick

    async def start() -> None:
        await runner.start(service.advance_ai, store.ai_turns)

    return create_app(
        settings, service, unavailable=(StoreDown,), on_startup=[start], on_shutdown=[runner.stop]
    )


@pytest.fixture
async def client(app: Litestar) -> AsyncIterator[AsyncTestClient[Any]]:
    async with AsyncTestClient(app=app) as client:
        yield client
