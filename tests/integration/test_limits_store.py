"""The limits' shared counts (infra.limits) and the matches' quotas, on SQLite and on
Postgres: what one process counts, another sees; a dead process's leases lapse."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.domain.match import MatchState, resign
from scopa.infra.db import make_engine
from scopa.infra.limits import LEASE_SECONDS, SqlLimits
from scopa.infra.stores import sql_stores
from scopa.service.ids import new_match_id
from scopa.service.limits import OwnerQuotas, QuotaExceeded, Window
from scopa.service.ports import MatchRecord
from tests.support.stored import T0, Clock, fresh
from tests.support.writes import create, save


@pytest.fixture
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(database_url)
    try:
        yield engine
    finally:
        await engine.dispose()


def window(client: str = "a", cap: int = 2, name: str = "create") -> Window:
    return Window(name, client, 1, cap, T0 + 60)


async def test_a_window_counts_to_its_cap_across_processes(engine: AsyncEngine) -> None:
    one, two = SqlLimits(engine), SqlLimits(engine)
    assert await one.count([window()], take=True) == (True, [1])
    assert await two.count([window()], take=True) == (True, [2])
    assert await one.count([window()], take=True) == (False, [2])
    assert await two.count([window()], take=False) == (False, [2])
    assert await two.count([window("b")], take=False) == (True, [0])


async def test_a_refusal_under_one_limit_counts_nothing_under_the_others(
    engine: AsyncEngine,
) -> None:
    limits = SqlLimits(engine)
    full, roomy = window(cap=1), window(cap=5, name="hints")
    await limits.count([full], take=True)
    assert await limits.count([roomy, full], take=True) == (False, [0, 1])
    assert await limits.count([roomy], take=False) == (True, [0])


async def test_leases_cap_a_client_and_a_match(engine: AsyncEngine) -> None:
    limits = SqlLimits(engine)
    first = await limits.hold("a", "m1", 2, 1)
    assert first is not None
    assert await limits.hold("b", "m1", 2, 1) is None  # the match is full
    assert await limits.hold("a", None, 2, 1) is not None  # a long poll: no match cap
    assert await limits.hold("a", "m2", 2, 1) is None  # the client is full
    await limits.release(first)
    assert await limits.hold("b", "m1", 2, 1) is not None


async def test_a_dead_processs_leases_lapse_and_a_live_ones_are_renewed(
    engine: AsyncEngine,
) -> None:
    clock = Clock()
    dead, alive = SqlLimits(engine, clock=clock), SqlLimits(engine, clock=clock)
    assert await dead.hold("a", "m", 1, 0) is not None
    assert await alive.hold("b", "m", 1, 0) is not None
    clock.now += LEASE_SECONDS - 1
    await alive.renew()
    assert await alive.hold("a", "m", 1, 0) is None  # still held by the dead one
    clock.now += 2  # past the dead process's lease, within the renewed one
    assert await alive.hold("a", "m", 1, 0) is not None
    assert await alive.hold("b", "m", 1, 0) is None


async def test_ended_windows_are_purged(engine: AsyncEngine) -> None:
    clock = Clock(T0 + 600)
    limits = SqlLimits(engine, clock=clock)
    await limits.count([window(cap=1)], take=True)
    await limits.renew()
    assert await limits.count([window(cap=1)], take=False) == (True, [0])


def record(state: MatchState) -> MatchRecord:
    return MatchRecord(new_match_id(), state, T0)


async def test_an_owner_holds_at_most_its_ai_only_matches_while_they_run(
    engine: AsyncEngine,
) -> None:
    store = sql_stores(engine)
    quotas = OwnerQuotas("10.0.0.1", waiting=0, ai_only=1)
    state, events = fresh("ai", "ai")
    running = record(state)
    await create(store.matches, running, events, {}, quota=quotas.of(state))
    with pytest.raises(QuotaExceeded):
        await create(store.matches, record(state), events, {}, quota=quotas.of(state))
    # Another owner, and a match with a human seat, count toward nothing here.
    other = OwnerQuotas("10.0.0.2", waiting=0, ai_only=1)
    await create(store.matches, record(state), events, {}, quota=other.of(state))
    human, _ = fresh("human", "ai")
    assert quotas.of(human) is None
    over, finished_events = resign(state, 0)
    await save(store.matches, running.id, state.version, over, finished_events)
    await create(store.matches, record(state), events, {}, quota=quotas.of(state))


async def test_racing_creations_never_pass_the_waiting_quota(engine: AsyncEngine) -> None:
    store = sql_stores(engine)
    quotas = OwnerQuotas("10.0.0.1", waiting=3, ai_only=0)
    state, events = fresh("human", "open")
    tries = [
        create(store.matches, record(state), events, {}, quota=quotas.of(state)) for _ in range(12)
    ]
    outcomes = await asyncio.gather(*tries, return_exceptions=True)
    assert sum(o is None for o in outcomes) == 3
    assert all(isinstance(o, QuotaExceeded) for o in outcomes if o is not None)
