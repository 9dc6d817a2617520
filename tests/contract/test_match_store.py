"""The contract of the match stores, which the in-memory fake keeps as SQLite and
Postgres do: every test here runs on all three."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

import pytest

from scopa.domain.match import abort, join, resign
from scopa.infra.db import make_engine
from scopa.infra.stores import sql_stores
from scopa.service.ports import (
    Change,
    IdempotencyConflict,
    IdempotencyKeys,
    MatchReads,
    MatchRecord,
    MatchRepository,
    VersionConflict,
)
from tests.fakes import FakeStore
from tests.support.stored import (
    T0,
    Clock,
    advance,
    answer,
    claim,
    fresh,
    stored,
    token_hash,
)
from tests.support.writes import create, save


class Answers(IdempotencyKeys, Protocol):
    """The keys' port, and the purge that the app runs on its store (scopa.wiring)."""

    async def purge_idempotency(self, older_than: float) -> int: ...


@dataclass(frozen=True)
class Stores:
    """The storage ports one adapter gives."""

    matches: MatchRepository
    reads: MatchReads
    answers: Answers


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["fake", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, clock: Clock) -> AsyncIterator[Stores]:
    if request.param == "fake":
        fake = FakeStore(clock=clock)
        yield Stores(fake, fake.reads, fake.keys)
        return
    engine = make_engine(str(request.getfixturevalue(f"{request.param}_url")))
    try:
        sql = sql_stores(engine, clock=clock)
        yield Stores(sql.matches, sql.reads, sql.answers)
    finally:
        await engine.dispose()


async def test_a_created_match_reads_back_whole(store: Stores) -> None:
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0 + 0.123456)
    await create(store.matches, record, events, {0: token_hash("a"), 1: token_hash("b")})

    assert await store.matches.get("m1") == record
    assert await store.reads.events("m1", 0, 500) == events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


async def test_an_unknown_match_is_none(store: Stores) -> None:
    assert await store.matches.get("nope") is None
    assert await store.reads.events("nope", 0, 10) == []


async def test_creating_an_existing_id_conflicts(store: Stores) -> None:
    await stored(store, "m1")
    with pytest.raises(VersionConflict):
        await stored(store, "m1")


async def test_a_save_replaces_the_state_and_appends_events(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 3)

    await save(store.matches, "m1", 0, state, events)

    record = await store.matches.get("m1")
    assert record is not None
    assert record.state == state
    assert record.state.version == 3
    assert await store.reads.initial("m1") == initial
    assert [e.seq for e in await store.reads.events("m1", 0, 500)] == list(range(1, state.seq + 1))


async def test_a_save_at_a_stale_version_conflicts_and_changes_nothing(
    store: Stores,
) -> None:
    initial = await stored(store, "m1")
    first, first_events = advance(initial)
    await save(store.matches, "m1", 0, first, first_events)
    other, other_events = advance(initial, 2)

    with pytest.raises(VersionConflict):
        await save(store.matches, "m1", 0, other, other_events)

    record = await store.matches.get("m1")
    assert record is not None
    assert record.state == first
    assert (await store.reads.events("m1", 0, 500))[-1] == first_events[-1]


async def test_the_version_alone_guards_a_save(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial)
    await save(store.matches, "m1", 0, state, events)

    with pytest.raises(VersionConflict):
        await save(store.matches, "m1", 0, state, [])


async def test_saving_an_unknown_match_conflicts(store: Stores) -> None:
    state, events = advance(fresh()[0])
    with pytest.raises(VersionConflict):
        await save(store.matches, "ghost", 0, state, events)


async def test_an_event_seq_taken_twice_conflicts_and_rolls_back(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial)
    # A writer whose events repeat stored seqs, though its version check passes.
    with pytest.raises(VersionConflict):
        await save(store.matches, "m1", 0, state, await store.reads.events("m1", 0, 1))

    record = await store.matches.get("m1")
    assert record is not None
    assert record.state.version == 0
    await save(store.matches, "m1", 0, state, events)


async def test_events_come_after_a_seq_up_to_a_limit(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 12)
    await save(store.matches, "m1", 0, state, events)
    everything = await store.reads.events("m1", 0, 500)

    assert [e.seq for e in await store.reads.events("m1", 2, 3)] == [3, 4, 5]
    assert await store.reads.events("m1", 2, 3) == everything[2:5]
    assert await store.reads.events("m1", state.seq, 10) == []
    assert len(await store.reads.events("m1", 0, 1)) == 1


async def test_every_kind_of_event_survives_storage(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = initial, []
    while state.status == "active":
        state, more = advance(state)
        events += more
    await save(store.matches, "m1", 0, state, events)

    stored_events = await store.reads.events("m1", 0, 10_000)
    assert stored_events[-1].seq == state.seq
    assert stored_events == (await store.reads.events("m1", 0, 1)) + events
    kinds = {type(e).__name__ for e in stored_events}
    assert {"DealStarted", "CardPlayed", "DealScored", "MatchFinished"} <= kinds
    record = await store.matches.get("m1")
    assert record is not None
    assert record.state == state


async def test_a_token_hash_names_its_seat_in_its_match_only(store: Stores) -> None:
    state = await stored(store, "m1", tokens=["a", "b"])
    await stored(store, "m2", tokens=["c", "d"])

    async def seat(match_id: str, token: str) -> int | None:
        found = await store.matches.get_for_token(match_id, token_hash(token))
        assert found is not None
        assert found[0].state == state
        return found[1]

    assert await seat("m1", "b") == 1
    assert await seat("m1", "a") == 0
    assert await seat("m1", "c") is None
    assert await seat("m1", "zz") is None
    assert await store.matches.get_for_token("m3", token_hash("a")) is None
    assert await store.reads.token_known(token_hash("c"))
    assert not await store.reads.token_known(token_hash("zz"))


async def test_a_join_adds_its_token_and_leaves_the_lobby(store: Stores) -> None:
    initial = await stored(store, "m1", "human", "open", tokens=["a"])
    assert [r.id for r in await store.reads.waiting(10, None)] == ["m1"]

    state, events = join(initial, 1)
    await save(store.matches, "m1", 0, state, events, {1: token_hash("b")})

    found = await store.matches.get_for_token("m1", token_hash("b"))
    assert found is not None
    assert found[1] == 1
    assert await store.reads.waiting(10, None) == []
    record = await store.matches.get("m1")
    assert record is not None
    assert record.state.status == "active"


async def test_the_lobby_pages_oldest_first(store: Stores) -> None:
    created = {"e": T0 + 2, "a": T0 + 1, "c": T0 + 1, "b": T0 + 1, "d": T0}
    for match_id, at in created.items():
        await stored(store, match_id, "human", "open", created_at=at)
    await stored(store, "full", created_at=T0)

    pages: list[list[str]] = []
    cursor: tuple[float, str] | None = None
    while True:
        page = await store.reads.waiting(2, cursor)
        if not page:
            break
        pages.append([r.id for r in page])
        cursor = (page[-1].created_at, page[-1].id)

    assert pages == [["d", "a"], ["b", "c"], ["e"]]
    first = (await store.reads.waiting(1, None))[0]
    assert first.created_at == T0
    assert first.state.seats[1].kind == "open"


async def test_due_at_is_stored_with_each_change_and_read_back(store: Stores) -> None:
    state, events = fresh()
    await create(store.matches, MatchRecord("m1", state, T0, due_at=T0 + 0.25), events, {})
    found = await store.matches.get_for_token("m1", token_hash("nobody"))
    assert found is not None
    assert found[0].due_at == T0 + 0.25

    moved, more = advance(state)
    await save(store.matches, "m1", 0, moved, more, due_at=T0 + 30.125)
    record = await store.matches.get("m1")
    assert record is not None
    assert record.due_at == T0 + 30.125
    ended, more = resign(moved, 0)
    await save(store.matches, "m1", 1, ended, more)
    record = await store.matches.get("m1")
    assert record is not None
    assert record.due_at is None


async def test_due_lists_the_matches_past_their_moment_longest_overdue_first(
    store: Stores,
) -> None:
    for match_id, due_at in {"late": T0 + 5, "later": T0 + 9, "soon": T0 + 11, "x": None}.items():
        state, events = fresh()
        await create(store.matches, MatchRecord(match_id, state, T0, due_at=due_at), events, {})
    assert await store.reads.due(T0 + 10, 10) == ["late", "later"]
    assert await store.reads.due(T0 + 10, 1) == ["late"]
    assert await store.reads.due(T0 + 11, 10) == ["late", "later", "soon"]
    assert await store.reads.due(T0, 10) == []


async def test_a_match_that_ended_waiting_leaves_the_lobby(store: Stores) -> None:
    initial = await stored(store, "m1", "human", "open")
    assert [r.id for r in await store.reads.waiting(10, None)] == ["m1"]
    state, events = abort(initial)
    await save(store.matches, "m1", 0, state, events)
    assert await store.reads.waiting(10, None) == []


async def test_active_count_counts_the_matches_being_played(store: Stores) -> None:
    assert await store.reads.active_count() == 0
    await stored(store, "humans")
    await stored(store, "lobby", "human", "open")
    state = await stored(store, "bots", "ai", "ai")
    assert await store.reads.active_count() == 2
    version, events = state.version, []
    while state.status == "active":
        state, more = advance(state)
        events += more
    await save(store.matches, "bots", version, state, events)
    assert await store.reads.active_count() == 1


async def test_a_claimed_key_is_busy_until_answered(store: Stores) -> None:
    initial = await stored(store, "m1")
    assert await store.answers.begin_idempotent(claim()) is None
    with pytest.raises(IdempotencyConflict):
        await store.answers.begin_idempotent(claim())

    state, events = advance(initial)
    await save(store.matches, "m1", 0, state, events, answer=(claim(), answer()))

    assert await store.answers.begin_idempotent(claim()) == answer()
    # Another body under the same key gets the answer too: the caller compares.
    assert await store.answers.begin_idempotent(claim(fingerprint="fp2")) == answer()


async def test_keys_are_scoped(store: Stores) -> None:
    assert await store.answers.begin_idempotent(claim(scope="a")) is None
    assert await store.answers.begin_idempotent(claim(scope="b")) is None


async def test_create_keeps_its_answer(store: Stores) -> None:
    assert await store.answers.begin_idempotent(claim()) is None
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0)

    await create(store.matches, record, events, {}, answer=(claim(), answer(body=b"tokens")))

    assert await store.answers.begin_idempotent(claim()) == answer(body=b"tokens")


async def test_an_answer_without_a_claim_is_kept(store: Stores) -> None:
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0)
    await create(store.matches, record, events, {}, answer=(claim(), answer()))

    assert await store.answers.begin_idempotent(claim()) == answer()


async def test_an_answer_for_a_key_answered_already_undoes_the_change(
    store: Stores,
) -> None:
    initial = await stored(store, "m1")
    await store.answers.begin_idempotent(claim())
    await create(
        store.matches,
        MatchRecord(id="m2", state=initial, created_at=T0),
        [],
        {},
        answer=(claim(), answer()),
    )
    state, events = advance(initial)

    with pytest.raises(IdempotencyConflict):
        await save(store.matches, "m1", 0, state, events, answer=(claim(), answer(body=b"late")))

    record = await store.matches.get("m1")
    assert record is not None
    assert record.state.version == 0
    assert await store.answers.begin_idempotent(claim()) == answer()


async def test_a_released_claim_frees_the_key(store: Stores) -> None:
    assert await store.answers.begin_idempotent(claim()) is None
    await store.answers.release_idempotent(claim())
    assert await store.answers.begin_idempotent(claim(fingerprint="fp2")) is None


async def test_releasing_never_drops_an_answer(store: Stores) -> None:
    await stored(store, "m1")
    await store.answers.begin_idempotent(claim())
    state, events = advance(fresh()[0])
    await save(store.matches, "m1", 0, state, events, answer=(claim(), answer()))

    await store.answers.release_idempotent(claim())

    assert await store.answers.begin_idempotent(claim()) == answer()


async def test_a_claim_of_a_crashed_request_can_be_taken_over(store: Stores, clock: Clock) -> None:
    assert await store.answers.begin_idempotent(claim()) is None
    clock.now += 30
    with pytest.raises(IdempotencyConflict):
        await store.answers.begin_idempotent(claim())
    clock.now += 31

    assert await store.answers.begin_idempotent(claim(fingerprint="fp2")) is None
    with pytest.raises(IdempotencyConflict):
        await store.answers.begin_idempotent(claim())


async def test_purging_drops_only_old_keys(store: Stores, clock: Clock) -> None:
    await store.answers.begin_idempotent(claim("old"))
    clock.now += 86_400
    await store.answers.begin_idempotent(claim("new"))

    assert await store.answers.purge_idempotency(older_than=clock.now - 3600) == 1

    assert await store.answers.begin_idempotent(claim("old")) is None
    with pytest.raises(IdempotencyConflict):
        await store.answers.begin_idempotent(claim("new"))


async def test_ping(store: Stores) -> None:
    await store.reads.ping()


async def test_of_racing_saves_exactly_one_wins(store: Stores) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 2)

    results = await asyncio.gather(
        *(save(store.matches, "m1", 0, state, events) for _ in range(50)), return_exceptions=True
    )

    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r is not None)
    seqs = [e.seq for e in await store.reads.events("m1", 0, 500)]
    assert seqs == list(range(1, state.seq + 1))


async def test_of_racing_claims_exactly_one_wins(store: Stores) -> None:
    results = await asyncio.gather(
        *(store.answers.begin_idempotent(claim()) for _ in range(20)), return_exceptions=True
    )

    assert results.count(None) == 1
    assert all(isinstance(r, IdempotencyConflict) for r in results if r is not None)


async def test_matches_played_side_by_side_all_land(store: Stores) -> None:
    async def play_out(match_id: str) -> None:
        state = await stored(store, match_id)
        for _ in range(8):
            after, events = advance(state)
            await save(store.matches, match_id, state.version, after, events)
            state = after

    await asyncio.gather(*(play_out(f"m{i}") for i in range(12)))

    for i in range(12):
        record = await store.matches.get(f"m{i}")
        assert record is not None
        assert record.state.version == 8


async def test_a_unit_of_work_left_uncommitted_stores_nothing(store: Stores) -> None:
    state, events = fresh()
    async with store.matches.unit_of_work() as uow:
        uow.add(MatchRecord("m1", state, T0), events, {0: token_hash("a")})
        uow.keep_answer((claim(), answer()))
    assert await store.matches.get("m1") is None
    assert await store.reads.seat_tokens("m1") == {}
    assert await store.answers.begin_idempotent(claim()) is None


async def test_a_unit_of_work_stores_all_it_holds_or_nothing(store: Stores) -> None:
    initial = await stored(store, "m1")
    moved, events = advance(initial)
    await save(store.matches, "m1", 0, moved, events)
    other, other_events = advance(initial, 2)  # decided on version 0 too: stale now
    state, first_events = fresh()
    async with store.matches.unit_of_work() as uow:
        uow.add(MatchRecord("m2", state, T0), first_events, {0: token_hash("b")})
        uow.change(Change("m1", 0, other, tuple(other_events)))
        uow.keep_answer((claim(), answer()))
        with pytest.raises(VersionConflict):
            await uow.commit()
    assert await store.matches.get("m2") is None
    assert await store.reads.seat_tokens("m2") == {}
    assert await store.answers.begin_idempotent(claim()) is None
    record = await store.matches.get("m1")
    assert record is not None
    assert record.state == moved


async def test_a_unit_of_work_stores_a_new_match_and_a_change_together(store: Stores) -> None:
    initial = await stored(store, "m1")
    moved, events = advance(initial)
    state, first_events = fresh()
    async with store.matches.unit_of_work() as uow:
        uow.add(MatchRecord("m2", state, T0), first_events, {0: token_hash("b")})
        uow.change(Change("m1", 0, moved, tuple(events), T0 + 9))
        uow.keep_answer((claim(), answer()))
        await uow.commit()
    assert await store.matches.get("m2") == MatchRecord("m2", state, T0)
    assert await store.matches.get("m1") == MatchRecord("m1", moved, T0, T0 + 9)
    assert await store.reads.seat_tokens("m2") == {0: token_hash("b")}
    assert await store.answers.begin_idempotent(claim()) == answer()
