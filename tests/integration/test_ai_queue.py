"""The queue of pending AI turns (infra.ai_turns) in the SQL store, on SQLite and
Postgres: written with each change, claimed by urgency under a lease, paced for matches
of AI seats only, and claimed by one of many claimers racing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, SeatKind, legal_moves, new_match, play
from scopa.domain.rules import make_rules
from scopa.infra.db import make_engine
from scopa.infra.notify import CHANNEL, PostgresEventBus
from scopa.infra.stores import SqlStores, sql_stores
from scopa.service.ports import MatchRecord
from tests.support.writes import create, save

T0 = 1_700_000_000.0
PACE = 1.0
LEASE = 3.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(database_url: str, clock: Clock) -> AsyncIterator[SqlStores]:
    engine = make_engine(database_url)
    try:
        yield sql_stores(engine, clock=clock, ai_only_pace=PACE)
    finally:
        await engine.dispose()


def fresh(*kinds: SeatKind, first_dealer: int = 1) -> tuple[MatchState, list[StoredEvent]]:
    """Seat 0 plays first (the dealer's left)."""
    seats = [Seat(k, "easy" if k == "ai" else None) for k in kinds]
    return new_match(make_rules(players=len(kinds)), seats, seed=3, first_dealer=first_dealer)


async def created(store: SqlStores, match_id: str, *kinds: SeatKind) -> MatchState:
    state, events = fresh(*kinds)
    await create(store.matches, MatchRecord(match_id, state, T0), events, {})
    return state


async def moved(store: SqlStores, match_id: str, state: MatchState) -> MatchState:
    after, events = play(state, state.turn or 0, legal_moves(state)[0])
    await save(store.matches, match_id, state.version, after, events)
    return after


async def claims(store: SqlStores) -> list[str]:
    """Every turn claimable now, in the order they come."""
    found = []
    while (match_id := await store.ai_turns.claim_ai_turn(LEASE)) is not None:
        found.append(match_id)
    return found


async def test_only_an_ai_to_play_is_queued(store: SqlStores) -> None:
    await created(store, "humans", "human", "human")
    await created(store, "lobby", "ai", "open")
    human_first = await created(store, "mixed", "human", "ai")
    assert human_first.turn == 0

    assert await claims(store) == []
    await moved(store, "mixed", human_first)
    assert await claims(store) == ["mixed"]


async def test_humans_matches_come_before_ai_only_ones(store: SqlStores, clock: Clock) -> None:
    await created(store, "bots-1", "ai", "ai")
    clock.now += 1
    await created(store, "bots-2", "ai", "ai")
    clock.now += 1
    mixed = await created(store, "mixed", "human", "ai")
    clock.now += 1
    await moved(store, "mixed", mixed)

    assert await claims(store) == ["mixed", "bots-1", "bots-2"]


async def test_an_ai_only_match_waits_its_pace_between_moves(
    store: SqlStores, clock: Clock
) -> None:
    state = await created(store, "bots", "ai", "ai")
    assert await claims(store) == ["bots"]  # its first move at once
    await moved(store, "bots", state)

    clock.now += PACE - 0.01
    assert await claims(store) == []
    clock.now += 0.02
    assert await claims(store) == ["bots"]


async def test_a_lease_keeps_the_turn_until_it_lapses(store: SqlStores, clock: Clock) -> None:
    await created(store, "bots", "ai", "ai")
    assert await store.ai_turns.claim_ai_turn(LEASE) == "bots"

    clock.now += LEASE - 0.01
    assert await store.ai_turns.claim_ai_turn(LEASE) is None  # its claimer may still be at it
    clock.now += 0.02
    assert await store.ai_turns.claim_ai_turn(LEASE) == "bots"  # it died: the turn is another's


async def test_the_move_s_save_ends_the_lease_and_the_turn(store: SqlStores, clock: Clock) -> None:
    state = await created(store, "mixed", "ai", "human")
    assert await claims(store) == ["mixed"]
    await moved(store, "mixed", state)

    assert (await store.ai_turns.ai_backlog()).ready == 0
    assert await claims(store) == []


async def test_the_backlog_counts_ready_turns_and_the_oldest(
    store: SqlStores, clock: Clock
) -> None:
    await created(store, "bots-1", "ai", "ai")
    clock.now += 5
    await created(store, "bots-2", "ai", "ai")

    backlog = await store.ai_turns.ai_backlog()
    assert (backlog.ready, backlog.oldest_ready_at) == (2, T0)


async def test_a_finished_match_waits_on_nobody(store: SqlStores) -> None:
    state = await created(store, "bots", "ai", "ai")
    version, events = state.version, []
    while state.status == "active":
        state, more = play(state, state.turn or 0, legal_moves(state)[0])
        events += more
    await save(store.matches, "bots", version, state, events)

    assert await claims(store) == []


async def test_racing_claimers_share_the_turns_out_once_each(store: SqlStores) -> None:
    ids = [f"bots-{i}" for i in range(12)]
    for match_id in ids:
        await created(store, match_id, "ai", "ai")

    won = await asyncio.gather(*(store.ai_turns.claim_ai_turn(LEASE) for _ in range(20)))

    taken = [w for w in won if w is not None]
    assert sorted(taken) == sorted(ids)


async def test_heartbeats_add_up_to_the_capacity(store: SqlStores, clock: Clock) -> None:
    assert await store.ai_turns.ai_capacity() == 0
    await store.ai_turns.beat("a", 2)
    await store.ai_turns.beat("b", 1)
    assert await store.ai_turns.ai_capacity() == 3

    await store.ai_turns.beat("a", 0)  # its pool is being replaced
    assert await store.ai_turns.ai_capacity() == 1
    clock.now += 60  # nobody heard from since
    assert await store.ai_turns.ai_capacity() == 0
    await store.ai_turns.beat("b", 1)
    await store.ai_turns.leave("b")
    assert await store.ai_turns.ai_capacity() == 0


async def test_only_the_holder_renews_its_lease(store: SqlStores, clock: Clock) -> None:
    await created(store, "bots", "ai", "ai")
    assert await store.ai_turns.claim_ai_turn(LEASE, "a") == "bots"

    clock.now += LEASE - 1
    await store.ai_turns.renew_ai_turn("bots", LEASE, "b")  # not b's: nothing changes
    await store.ai_turns.renew_ai_turn("bots", LEASE, "a")
    clock.now += 1.5  # past the first lease, within the renewed one
    assert await store.ai_turns.claim_ai_turn(LEASE, "b") is None
    clock.now += LEASE
    assert await store.ai_turns.claim_ai_turn(LEASE, "b") == "bots"


async def test_a_full_claimer_takes_only_humans_matches(store: SqlStores) -> None:
    await created(store, "bots", "ai", "ai")
    mixed = await created(store, "mixed", "human", "ai")

    assert await store.ai_turns.claim_ai_turn(LEASE, "a", True) is None
    await moved(store, "mixed", mixed)
    assert await store.ai_turns.claim_ai_turn(LEASE, "a", True) == "mixed"


@pytest.mark.postgres
async def test_a_new_match_whose_ai_plays_first_wakes_the_ai_runners(postgres_url: str) -> None:
    # An API process that runs no AI creates it: the workers must hear of it at once.
    heard: list[str] = []
    bus = PostgresEventBus(postgres_url, heard=heard.append)
    engine = make_engine(postgres_url)
    await bus.start()
    try:
        deadline = time.monotonic() + 10
        while not bus.listening:
            assert time.monotonic() < deadline, "the bus never listened"
            await asyncio.sleep(0.01)
        notifying = sql_stores(engine, notify=CHANNEL, ai_only_pace=PACE)
        await created(notifying, "humans-first", "human", "ai")
        await created(notifying, "ai-first", "ai", "human")
        while "ai-first" not in heard:
            assert time.monotonic() < deadline, heard
            await asyncio.sleep(0.01)
        # No wait for a wrong wake-up: NOTIFY is delivered in commit order, and
        # "humans-first" was committed first, so had its notice woken the AI runners it
        # would have been heard before "ai-first", and be in ``heard`` already.
        assert heard == ["ai-first"]
    finally:
        await bus.stop()
        await engine.dispose()
