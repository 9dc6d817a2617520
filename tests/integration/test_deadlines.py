"""Deadlines on a real store: two services (two processes' worth: each its own engine and
its own deadline runner) racing on the same passed moments make exactly one change each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest

from scopa.domain.cards import parse_card
from scopa.domain.events import CardPlayed, MatchFinished
from scopa.domain.match import MatchState, Seat
from scopa.domain.moves import Move
from scopa.infra.db import make_engine
from scopa.infra.deadline_runner import DeadlineRunner
from scopa.infra.notify import LocalEventBus
from scopa.infra.stores import sql_stores
from scopa.service.seating import Setup
from scopa.service.services import Services
from scopa.wiring import services_over
from tests.api.support import DECK
from tests.fakes import FirstMoveAi
from tests.support.eventually import eventually

pytestmark = pytest.mark.timeout(60)

MATCHES = 6
T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class PausingAi(FirstMoveAi):
    """Thinks long enough for the rival process to decide on the same version."""

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        await asyncio.sleep(0.02)
        return await super().decide(state, seat, level, seed)


@pytest.fixture
async def services(database_url: str) -> AsyncIterator[tuple[Services, Services, Clock]]:
    clock = Clock()
    async with AsyncExitStack() as stack:
        made = []
        for _ in range(2):
            engine = make_engine(database_url)
            stack.push_async_callback(engine.dispose)
            store = sql_stores(engine, clock=clock)
            made.append(services_over(store, LocalEventBus(), ai=PausingAi(), clock=clock))
        yield made[0], made[1], clock


def clocked(on_timeout: str) -> Setup:
    return Setup(
        seats=(Seat("human"), Seat("human")),
        rules={"turn_seconds": 5, "on_timeout": on_timeout},
        decks=(tuple(parse_card(c) for c in DECK),),
        first_dealer=0,
    )


async def logs(service: Services, ids: list[str]) -> dict[str, list[Any]]:
    return {i: await service.records.reads.events(i, 0, 500) for i in ids}


async def test_two_enforcers_on_one_deadline_make_one_change(
    services: tuple[Services, Services, Clock],
) -> None:
    here, there, clock = services
    autoplay = (await here.seating.create(clocked("autoplay"), None, "fp")).match.id
    forfeit = (await here.seating.create(clocked("forfeit"), None, "fp")).match.id
    clock.now += 5
    for match_id in (autoplay, forfeit):
        await asyncio.gather(here.moments.enforce(match_id), there.moments.enforce(match_id))
    found = await logs(here, [autoplay, forfeit])
    assert [type(e).__name__ for e in found[autoplay]] == ["DealStarted", "CardPlayed"]
    assert found[autoplay][-1].auto
    assert [type(e).__name__ for e in found[forfeit]] == ["DealStarted", "MatchFinished"]
    for match_id in (autoplay, forfeit):
        record = await here.callers.load(match_id)
        assert record.state.version == 1


class Watched:
    """A runner's polls and enforcements over ``service``, counted, to tell when it is
    done: nothing in flight, and a poll begun after a given one found nothing due."""

    def __init__(self, service: Services) -> None:
        self.service = service
        self.polls = 0  # begun
        self.found_none = 0  # the number of the latest poll begun that found nothing due
        self.enforcing = 0  # in flight

    async def due(self, limit: int) -> list[str]:
        self.polls += 1
        begun = self.polls
        found = await self.service.moments.due(limit)
        if not found:
            self.found_none = max(self.found_none, begun)
        return found

    async def enforce(self, match_id: str) -> None:
        self.enforcing += 1
        try:
            await self.service.moments.enforce(match_id)
        finally:
            self.enforcing -= 1


async def test_two_runners_share_the_moments_of_many_matches(
    services: tuple[Services, Services, Clock],
) -> None:
    here, there, clock = services
    ids = [
        (await here.seating.create(clocked(("autoplay", "forfeit")[i % 2]), None, "fp")).match.id
        for i in range(MATCHES)
    ]
    runners = [DeadlineRunner(poll_seconds=0.01), DeadlineRunner(poll_seconds=0.01)]
    watched = [Watched(here), Watched(there)]
    for runner, counted in zip(runners, watched, strict=True):
        await runner.start(counted.enforce, counted.due)
    try:
        clock.now += 5

        async def none_due() -> bool:
            return not await here.moments.due(100)

        await eventually(none_due, seconds=5)
        # What must not happen is a second change of a match, so wait until none can be
        # in flight when the runners stop (which would cancel it): each runner has polled
        # afresh and found nothing due, and finished every enforcement it began. A runner
        # starts the enforcements a poll found before it polls again, so any begun from a
        # poll that raced the first changes is counted in ``enforcing`` by then.
        begun = [counted.polls for counted in watched]
        await eventually(
            lambda: all(
                counted.found_none > before and not counted.enforcing
                for counted, before in zip(watched, begun, strict=True)
            ),
            seconds=5,
        )
    finally:
        for runner in runners:
            await runner.stop()
    for match_id, log in (await logs(here, ids)).items():
        changes = [e for e in log if isinstance(e, CardPlayed | MatchFinished)]
        assert len(changes) == 1, (match_id, changes)
        assert [e.seq for e in log] == [1, 2]
        record = await here.callers.load(match_id)
        assert record.state.version == 1
        assert record.due_at == (None if record.state.status == "finished" else clock.now + 5)


async def test_a_runner_outlives_failing_polls_and_enforcements() -> None:
    """A database outage or a match that cannot be enforced stops nothing else."""
    done: list[str] = []
    polls = 0

    async def due(limit: int) -> list[str]:
        nonlocal polls
        polls += 1
        if polls <= 2:
            raise ConnectionError("the database does not answer")
        return [m for m in ("broken", "fine") if m not in done][:limit]

    async def enforce(match_id: str) -> None:
        if match_id == "broken":
            raise RuntimeError("cannot")
        done.append(match_id)

    runner = DeadlineRunner(poll_seconds=0.01)
    await runner.start(enforce, due)
    try:
        await eventually(lambda: done, seconds=3)
        polled = polls
        await eventually(lambda: polls > polled)
    finally:
        await runner.stop()
    assert done == ["fine"]  # still polling, the broken match tried again each time


async def test_a_backlog_is_worked_through_without_waiting_for_each_poll() -> None:
    """Hundreds of matches past their moment at once (a restart after a long stop)."""
    due_now = {f"m{i}" for i in range(200)}
    all_done = asyncio.Event()

    async def due(limit: int) -> list[str]:
        return sorted(due_now)[:limit]

    async def enforce(match_id: str) -> None:
        await asyncio.sleep(0.001)
        due_now.discard(match_id)
        if not due_now:
            all_done.set()

    runner = DeadlineRunner(poll_seconds=0.5, concurrency=8)
    started = asyncio.get_running_loop().time()
    await runner.start(enforce, due)
    try:
        await asyncio.wait_for(all_done.wait(), 10)
    finally:
        await runner.stop()
    # 25 batches of 8: one poll period each would take 12 s.
    assert asyncio.get_running_loop().time() - started < 2.0


async def test_an_outage_of_the_polls_is_logged_once_and_once_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failures = 5
    answered = 0

    async def due(_limit: int) -> list[str]:
        nonlocal failures, answered
        if failures:
            failures -= 1
            raise OSError("the database does not answer")
        answered += 1
        return []

    async def enforce(_match_id: str) -> None:
        raise AssertionError("nothing is due")

    runner = DeadlineRunner(poll_seconds=0.01)
    with caplog.at_level("INFO", logger="scopa.infra.deadline_runner"):
        await runner.start(enforce, due)
        # A few polls that answer: one line each would show.
        await eventually(lambda: answered >= 5, seconds=5)
        await runner.stop()

    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert said == [
        ("WARNING", "deadline polls failing; retrying quietly"),
        ("INFO", "deadline polls answer again"),
    ]
