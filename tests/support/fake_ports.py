"""Fixtures of the use cases over in-memory fakes of the ports, with a fast stand-in AI."""

from __future__ import annotations

import pytest

from scopa.service.services import Services
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, fake_service


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
def service(store: FakeStore, bus: FakeBus, ai: FirstMoveAi) -> Services:
    return fake_service(store, bus, ai=ai)
