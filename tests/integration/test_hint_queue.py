"""The hints asked of the workers (infra.hints) in the SQL store, on SQLite and
Postgres: claimed oldest first under a lease by one of many claimers, answered on their
row, never claimed once dropped (the client went away) or once their asker is gone."""

from __future__ import annotations

import asyncio

import pytest

from scopa.domain.match import legal_moves
from scopa.infra.db import make_engine
from scopa.infra.hints import HINT_TTL_SECONDS
from scopa.infra.notify import CHANNEL, PostgresEventBus
from scopa.infra.stores import SqlStores, sql_stores
from tests.integration.test_ai_queue import LEASE, Clock, clock, created, store
from tests.support.eventually import eventually

__all__ = ["clock", "store"]  # the fixtures, shared with the AI turns' queue


async def test_a_hint_is_claimed_once_answered_and_read(store: SqlStores) -> None:
    state = await created(store, "m", "human", "human")
    job = await store.hints.ask_hint("m", state, 0, "expert")
    assert await store.hints.hint_answer(job) is None
    assert not await store.hints.hint_held(job)
    assert await store.hints.claim_hint(LEASE, "a") == job
    assert await store.hints.claim_hint(LEASE, "b") is None
    assert await store.hints.hint_held(job)
    assert await store.hints.hint_job(job) == (state, 0, "expert")

    move = legal_moves(state)[0]
    await store.hints.answer_hint(job, move, "because")
    assert await store.hints.hint_answer(job) == (move, "because")
    await store.hints.drop_hint(job)
    assert await store.hints.hint_answer(job) is None
    assert await store.hints.hint_job(job) is None


async def test_a_dropped_hint_is_never_claimed(store: SqlStores) -> None:
    state = await created(store, "m", "human", "human")
    job = await store.hints.ask_hint("m", state, 0, "hard")
    await store.hints.drop_hint(job)  # its client went away first
    assert await store.hints.claim_hint(LEASE, "a") is None


async def test_oldest_first_and_a_full_claimer_takes_none(store: SqlStores, clock: Clock) -> None:
    state = await created(store, "m", "human", "human")
    first = await store.hints.ask_hint("m", state, 0, "hard")
    clock.now += 1
    second = await store.hints.ask_hint("m", state, 0, "easy")
    assert await store.hints.claim_hint(LEASE, "a", True) is None
    assert [await store.hints.claim_hint(LEASE, "a") for _ in range(3)] == [first, second, None]


async def test_a_lapsed_lease_leaves_the_hint_to_another_until_answered(
    store: SqlStores, clock: Clock
) -> None:
    state = await created(store, "m", "human", "human")
    job = await store.hints.ask_hint("m", state, 0, "hard")
    assert await store.hints.claim_hint(LEASE, "a") == job
    await store.hints.renew_hint(job, LEASE, "b")  # not b's: nothing changes
    clock.now += LEASE
    assert not await store.hints.hint_held(job)
    assert await store.hints.claim_hint(LEASE, "b") == job
    await store.hints.answer_hint(job, legal_moves(state)[0], "done")
    clock.now += LEASE
    assert await store.hints.claim_hint(LEASE, "c") is None  # answered: nothing left to decide


async def test_a_hint_whose_asker_is_gone_is_not_claimed_and_is_purged(
    store: SqlStores, clock: Clock
) -> None:
    state = await created(store, "m", "human", "human")
    await store.hints.ask_hint("m", state, 0, "hard")
    clock.now += HINT_TTL_SECONDS + 1
    kept = await store.hints.ask_hint("m", state, 0, "hard")
    assert await store.hints.purge_hints() == 1
    assert await store.hints.claim_hint(LEASE, "a") == kept


async def test_racing_claimers_take_each_hint_once(store: SqlStores) -> None:
    state = await created(store, "m", "human", "human")
    jobs = [await store.hints.ask_hint("m", state, 0, "easy") for _ in range(10)]
    won = await asyncio.gather(*(store.hints.claim_hint(LEASE, f"w{n}") for n in range(20)))
    assert sorted(w for w in won if w is not None) == sorted(jobs)


@pytest.mark.postgres
async def test_asking_wakes_the_hint_runners_and_not_the_ai_turns_runners(
    postgres_url: str,
) -> None:
    engine = make_engine(postgres_url)
    heard: list[str] = []
    hinted: list[str] = []
    bus = PostgresEventBus(postgres_url, heard=heard.append, hinted=hinted.append)
    await bus.start()
    try:
        notifying = sql_stores(engine, notify=CHANNEL)
        state = await created(notifying, "m", "human", "human")
        await eventually(lambda: bus.listening)
        await notifying.hints.ask_hint("m", state, 0, "hard")
        await eventually(lambda: hinted == ["m"])
        assert heard == []
        # No news for the match's waiters: the notice names the seq it stands at.
        assert await bus.wait("m", after=state.seq, seconds=0.01) is False
    finally:
        await bus.stop()
        await engine.dispose()


@pytest.mark.postgres
async def test_the_answer_wakes_its_asker_at_once(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    hinted: list[str] = []
    bus = PostgresEventBus(postgres_url, hinted=hinted.append)
    await bus.start()
    try:
        notifying = sql_stores(engine, notify=CHANNEL)
        state = await created(notifying, "m", "human", "human")
        await eventually(lambda: bus.listening)
        job = await notifying.hints.ask_hint("m", state, 0, "hard")
        # The ask's own notice is in before the asker waits: had it counted as news of
        # the job, the wait would return at once instead of being in progress.
        await eventually(lambda: hinted == ["m"])
        # The asker's wait (service.asked) is on the job, long past what the test allows.
        waiting = asyncio.ensure_future(bus.wait(job, 0, 30.0))
        await eventually(lambda: bus.waiting == 1 or waiting.done())
        assert not waiting.done()
        await notifying.hints.answer_hint(job, legal_moves(state)[0], "because")
        assert await asyncio.wait_for(waiting, 2.0) is True
        # The match's own waiters have no news.
        assert await bus.wait("m", after=state.seq, seconds=0.01) is False
    finally:
        await bus.stop()
        await engine.dispose()
