"""The MatchStore contract, on SQLite and on Postgres alike."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Sequence

import asyncpg
import pytest

from scopa.domain.events import StoredEvent
from scopa.domain.match import (
    MatchState,
    Seat,
    SeatKind,
    abort,
    join,
    legal_moves,
    new_match,
    play,
    resign,
)
from scopa.domain.rules import make_rules
from scopa.infra.db import DatabaseUnavailable, make_engine
from scopa.infra.repositories import SqlMatchStore
from scopa.service.ports import (
    Idempotency,
    IdempotencyConflict,
    MatchRecord,
    StoredAnswer,
    VersionConflict,
)

T0 = 1_700_000_000.0


class Clock:
    """A settable clock, for the idempotency claim timeout."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(database_url: str, clock: Clock) -> AsyncIterator[SqlMatchStore]:
    engine = make_engine(database_url)
    try:
        yield SqlMatchStore(engine, clock=clock)
    finally:
        await engine.dispose()


def seats(*kinds: SeatKind) -> list[Seat]:
    return [Seat(k, "easy" if k == "ai" else None) for k in kinds]


def fresh(*kinds: SeatKind, seed: int = 1) -> tuple[MatchState, list[StoredEvent]]:
    return new_match(make_rules(), seats(*(kinds or ("human", "human"))), seed=seed)


def advance(state: MatchState, moves: int = 1) -> tuple[MatchState, list[StoredEvent]]:
    events: list[StoredEvent] = []
    for _ in range(moves):
        state, more = play(state, state.turn or 0, legal_moves(state)[0])
        events += more
    return state, events


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def stored(
    store: SqlMatchStore,
    match_id: str,
    *kinds: SeatKind,
    created_at: float = T0,
    tokens: Sequence[str] = (),
) -> MatchState:
    state, events = fresh(*kinds)
    record = MatchRecord(id=match_id, state=state, created_at=created_at)
    await store.create(record, events, {i: token_hash(t) for i, t in enumerate(tokens)})
    return state


def claim(key: str = "k1", fingerprint: str = "fp1", scope: str = "create") -> Idempotency:
    return Idempotency(scope=scope, key=key, fingerprint=fingerprint)


def answer(fingerprint: str = "fp1", body: bytes = b'{"ok":true}') -> StoredAnswer:
    return StoredAnswer(fingerprint=fingerprint, body=body)


async def test_a_created_match_reads_back_whole(store: SqlMatchStore) -> None:
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0 + 0.123456)
    await store.create(record, events, {0: token_hash("a"), 1: token_hash("b")})

    assert await store.get("m1") == record
    assert await store.events("m1", 0, 500) == events
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


async def test_an_unknown_match_is_none(store: SqlMatchStore) -> None:
    assert await store.get("nope") is None
    assert await store.events("nope", 0, 10) == []


async def test_creating_an_existing_id_conflicts(store: SqlMatchStore) -> None:
    await stored(store, "m1")
    with pytest.raises(VersionConflict):
        await stored(store, "m1")


async def test_a_save_replaces_the_state_and_appends_events(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 3)

    await store.save("m1", 0, state, events)

    record = await store.get("m1")
    assert record is not None
    assert record.state == state
    assert record.state.version == 3
    assert await store.initial("m1") == initial
    assert [e.seq for e in await store.events("m1", 0, 500)] == list(range(1, state.seq + 1))


async def test_a_save_at_a_stale_version_conflicts_and_changes_nothing(
    store: SqlMatchStore,
) -> None:
    initial = await stored(store, "m1")
    first, first_events = advance(initial)
    await store.save("m1", 0, first, first_events)
    other, other_events = advance(initial, 2)

    with pytest.raises(VersionConflict):
        await store.save("m1", 0, other, other_events)

    record = await store.get("m1")
    assert record is not None
    assert record.state == first
    assert (await store.events("m1", 0, 500))[-1] == first_events[-1]


async def test_the_version_alone_guards_a_save(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial)
    await store.save("m1", 0, state, events)

    with pytest.raises(VersionConflict):
        await store.save("m1", 0, state, [])


async def test_saving_an_unknown_match_conflicts(store: SqlMatchStore) -> None:
    state, events = advance(fresh()[0])
    with pytest.raises(VersionConflict):
        await store.save("ghost", 0, state, events)


async def test_an_event_seq_taken_twice_conflicts_and_rolls_back(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial)
    # A writer whose events repeat stored seqs, though its version check passes.
    with pytest.raises(VersionConflict):
        await store.save("m1", 0, state, await store.events("m1", 0, 1))

    record = await store.get("m1")
    assert record is not None
    assert record.state.version == 0
    await store.save("m1", 0, state, events)


async def test_events_come_after_a_seq_up_to_a_limit(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 12)
    await store.save("m1", 0, state, events)
    everything = await store.events("m1", 0, 500)

    assert [e.seq for e in await store.events("m1", 2, 3)] == [3, 4, 5]
    assert await store.events("m1", 2, 3) == everything[2:5]
    assert await store.events("m1", state.seq, 10) == []
    assert len(await store.events("m1", 0, 1)) == 1


async def test_every_kind_of_event_survives_storage(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = initial, []
    while state.status == "active":
        state, more = advance(state)
        events += more
    await store.save("m1", 0, state, events)

    stored_events = await store.events("m1", 0, 10_000)
    assert stored_events[-1].seq == state.seq
    assert stored_events == (await store.events("m1", 0, 1)) + events
    kinds = {type(e).__name__ for e in stored_events}
    assert {"DealStarted", "CardPlayed", "DealScored", "MatchFinished"} <= kinds
    record = await store.get("m1")
    assert record is not None
    assert record.state == state


async def test_a_token_hash_names_its_seat_in_its_match_only(store: SqlMatchStore) -> None:
    state = await stored(store, "m1", tokens=["a", "b"])
    await stored(store, "m2", tokens=["c", "d"])

    async def seat(match_id: str, token: str) -> int | None:
        found = await store.get_for_token(match_id, token_hash(token))
        assert found is not None
        assert found[0].state == state
        return found[1]

    assert await seat("m1", "b") == 1
    assert await seat("m1", "a") == 0
    assert await seat("m1", "c") is None
    assert await seat("m1", "zz") is None
    assert await store.get_for_token("m3", token_hash("a")) is None
    assert await store.token_known(token_hash("c"))
    assert not await store.token_known(token_hash("zz"))


async def test_a_join_adds_its_token_and_leaves_the_lobby(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1", "human", "open", tokens=["a"])
    assert [r.id for r in await store.waiting(10, None)] == ["m1"]

    state, events = join(initial, 1)
    await store.save("m1", 0, state, events, {1: token_hash("b")})

    found = await store.get_for_token("m1", token_hash("b"))
    assert found is not None
    assert found[1] == 1
    assert await store.waiting(10, None) == []
    record = await store.get("m1")
    assert record is not None
    assert record.state.status == "active"


async def test_the_lobby_pages_oldest_first(store: SqlMatchStore) -> None:
    created = {"e": T0 + 2, "a": T0 + 1, "c": T0 + 1, "b": T0 + 1, "d": T0}
    for match_id, at in created.items():
        await stored(store, match_id, "human", "open", created_at=at)
    await stored(store, "full", created_at=T0)

    pages: list[list[str]] = []
    cursor: tuple[float, str] | None = None
    while True:
        page = await store.waiting(2, cursor)
        if not page:
            break
        pages.append([r.id for r in page])
        cursor = (page[-1].created_at, page[-1].id)

    assert pages == [["d", "a"], ["b", "c"], ["e"]]
    first = (await store.waiting(1, None))[0]
    assert first.created_at == T0
    assert first.state.seats[1].kind == "open"


async def test_due_at_is_stored_with_each_change_and_read_back(store: SqlMatchStore) -> None:
    state, events = fresh()
    await store.create(MatchRecord("m1", state, T0, due_at=T0 + 0.25), events, {})
    found = await store.get_for_token("m1", token_hash("nobody"))
    assert found is not None
    assert found[0].due_at == T0 + 0.25

    moved, more = advance(state)
    await store.save("m1", 0, moved, more, due_at=T0 + 30.125)
    record = await store.get("m1")
    assert record is not None
    assert record.due_at == T0 + 30.125
    ended, more = resign(moved, 0)
    await store.save("m1", 1, ended, more)
    record = await store.get("m1")
    assert record is not None
    assert record.due_at is None


async def test_due_lists_the_matches_past_their_moment_longest_overdue_first(
    store: SqlMatchStore,
) -> None:
    for match_id, due_at in {"late": T0 + 5, "later": T0 + 9, "soon": T0 + 11, "x": None}.items():
        state, events = fresh()
        await store.create(MatchRecord(match_id, state, T0, due_at=due_at), events, {})
    assert await store.due(T0 + 10, 10) == ["late", "later"]
    assert await store.due(T0 + 10, 1) == ["late"]
    assert await store.due(T0 + 11, 10) == ["late", "later", "soon"]
    assert await store.due(T0, 10) == []


async def test_a_match_that_ended_waiting_leaves_the_lobby(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1", "human", "open")
    assert [r.id for r in await store.waiting(10, None)] == ["m1"]
    state, events = abort(initial)
    await store.save("m1", 0, state, events)
    assert await store.waiting(10, None) == []


async def test_active_count_counts_the_matches_being_played(store: SqlMatchStore) -> None:
    assert await store.active_count() == 0
    await stored(store, "humans")
    await stored(store, "lobby", "human", "open")
    state = await stored(store, "bots", "ai", "ai")
    assert await store.active_count() == 2
    version, events = state.version, []
    while state.status == "active":
        state, more = advance(state)
        events += more
    await store.save("bots", version, state, events)
    assert await store.active_count() == 1


async def test_a_claimed_key_is_busy_until_answered(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    assert await store.begin_idempotent(claim()) is None
    with pytest.raises(IdempotencyConflict):
        await store.begin_idempotent(claim())

    state, events = advance(initial)
    await store.save("m1", 0, state, events, answer=(claim(), answer()))

    assert await store.begin_idempotent(claim()) == answer()
    # Another body under the same key gets the answer too: the caller compares.
    assert await store.begin_idempotent(claim(fingerprint="fp2")) == answer()


async def test_keys_are_scoped(store: SqlMatchStore) -> None:
    assert await store.begin_idempotent(claim(scope="a")) is None
    assert await store.begin_idempotent(claim(scope="b")) is None


async def test_create_keeps_its_answer(store: SqlMatchStore) -> None:
    assert await store.begin_idempotent(claim()) is None
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0)

    await store.create(record, events, {}, answer=(claim(), answer(body=b"tokens")))

    assert await store.begin_idempotent(claim()) == answer(body=b"tokens")


async def test_an_answer_without_a_claim_is_kept(store: SqlMatchStore) -> None:
    state, events = fresh()
    record = MatchRecord(id="m1", state=state, created_at=T0)
    await store.create(record, events, {}, answer=(claim(), answer()))

    assert await store.begin_idempotent(claim()) == answer()


async def test_an_answer_for_a_key_answered_already_undoes_the_change(
    store: SqlMatchStore,
) -> None:
    initial = await stored(store, "m1")
    await store.begin_idempotent(claim())
    await store.create(
        MatchRecord(id="m2", state=initial, created_at=T0),
        [],
        {},
        answer=(claim(), answer()),
    )
    state, events = advance(initial)

    with pytest.raises(IdempotencyConflict):
        await store.save("m1", 0, state, events, answer=(claim(), answer(body=b"late")))

    record = await store.get("m1")
    assert record is not None
    assert record.state.version == 0
    assert await store.begin_idempotent(claim()) == answer()


async def test_a_released_claim_frees_the_key(store: SqlMatchStore) -> None:
    assert await store.begin_idempotent(claim()) is None
    await store.release_idempotent(claim())
    assert await store.begin_idempotent(claim(fingerprint="fp2")) is None


async def test_releasing_never_drops_an_answer(store: SqlMatchStore) -> None:
    await stored(store, "m1")
    await store.begin_idempotent(claim())
    state, events = advance(fresh()[0])
    await store.save("m1", 0, state, events, answer=(claim(), answer()))

    await store.release_idempotent(claim())

    assert await store.begin_idempotent(claim()) == answer()


async def test_a_claim_of_a_crashed_request_can_be_taken_over(
    store: SqlMatchStore, clock: Clock
) -> None:
    assert await store.begin_idempotent(claim()) is None
    clock.now += 30
    with pytest.raises(IdempotencyConflict):
        await store.begin_idempotent(claim())
    clock.now += 31

    assert await store.begin_idempotent(claim(fingerprint="fp2")) is None
    with pytest.raises(IdempotencyConflict):
        await store.begin_idempotent(claim())


async def test_purging_drops_only_old_keys(store: SqlMatchStore, clock: Clock) -> None:
    await store.begin_idempotent(claim("old"))
    clock.now += 86_400
    await store.begin_idempotent(claim("new"))

    assert await store.purge_idempotency(older_than=clock.now - 3600) == 1

    assert await store.begin_idempotent(claim("old")) is None
    with pytest.raises(IdempotencyConflict):
        await store.begin_idempotent(claim("new"))


async def test_ping(store: SqlMatchStore) -> None:
    await store.ping()


async def test_of_racing_saves_exactly_one_wins(store: SqlMatchStore) -> None:
    initial = await stored(store, "m1")
    state, events = advance(initial, 2)

    results = await asyncio.gather(
        *(store.save("m1", 0, state, events) for _ in range(50)), return_exceptions=True
    )

    assert sum(r is None for r in results) == 1
    assert all(isinstance(r, VersionConflict) for r in results if r is not None)
    seqs = [e.seq for e in await store.events("m1", 0, 500)]
    assert seqs == list(range(1, state.seq + 1))


async def test_of_racing_claims_exactly_one_wins(store: SqlMatchStore) -> None:
    results = await asyncio.gather(
        *(store.begin_idempotent(claim()) for _ in range(20)), return_exceptions=True
    )

    assert results.count(None) == 1
    assert all(isinstance(r, IdempotencyConflict) for r in results if r is not None)


async def test_matches_played_side_by_side_all_land(store: SqlMatchStore) -> None:
    async def play_out(match_id: str) -> None:
        state = await stored(store, match_id)
        for _ in range(8):
            after, events = advance(state)
            await store.save(match_id, state.version, after, events)
            state = after

    await asyncio.gather(*(play_out(f"m{i}") for i in range(12)))

    for i in range(12):
        record = await store.get(f"m{i}")
        assert record is not None
        assert record.state.version == 8


async def test_two_engines_on_one_sqlite_file_never_lock_each_other(sqlite_url: str) -> None:
    # Two engines stand for two server processes: only SQLite's own locking is shared.
    engines = [make_engine(sqlite_url), make_engine(sqlite_url)]
    try:
        first, second = (SqlMatchStore(e) for e in engines)
        await asyncio.gather(
            *(stored(first, f"a{i}") for i in range(20)),
            *(stored(second, f"b{i}") for i in range(20)),
        )
        assert len(await first.waiting(100, None)) == 0
        assert await second.get("a19") is not None
    finally:
        for engine in engines:
            await engine.dispose()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    "url",
    [
        pytest.param(f"postgresql+asyncpg://postgres@127.0.0.1:{_closed_port()}/x", id="pg"),
        pytest.param("sqlite+aiosqlite:////nonexistent/dir/scopa.db", id="sqlite"),
    ],
)
async def test_an_unreachable_database_is_unavailable_at_once(url: str) -> None:
    engine = make_engine(url)
    store = SqlMatchStore(engine)
    started = time.monotonic()
    try:
        with pytest.raises(DatabaseUnavailable):
            await store.ping()
        with pytest.raises(DatabaseUnavailable):
            await store.get("m1")
    finally:
        await engine.dispose()
        await _aiosqlite_threads_done()
    assert time.monotonic() - started < 5


async def _aiosqlite_threads_done() -> None:
    # aiosqlite stops the thread of a connection that failed to open without awaiting
    # it: the thread must finish while this test's event loop is still open.
    deadline = time.monotonic() + 5
    while any("_connection_worker_thread" in t.name for t in threading.enumerate()):
        assert time.monotonic() < deadline, "aiosqlite threads left running"
        await asyncio.sleep(0.01)


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


@pytest.mark.postgres
async def test_the_store_outlives_its_connections_being_dropped(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    store = SqlMatchStore(engine)
    try:
        await stored(store, "m1")
        admin = await asyncpg.connect(_dsn(postgres_url))
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        finally:
            await admin.close()

        assert await store.get("m1") is not None
    finally:
        await engine.dispose()


@pytest.mark.postgres
async def test_a_statement_stuck_on_a_lock_is_unavailable_soon(postgres_url: str) -> None:
    engine = make_engine(postgres_url, command_timeout=0.5)
    store = SqlMatchStore(engine)
    try:
        initial = await stored(store, "m1")
        state, events = advance(initial)
        blocker = await asyncpg.connect(_dsn(postgres_url))
        try:
            async with blocker.transaction():
                await blocker.execute("SELECT 1 FROM matches WHERE id = 'm1' FOR UPDATE")
                started = time.monotonic()
                with pytest.raises(DatabaseUnavailable):
                    await store.save("m1", 0, state, events)
                assert time.monotonic() - started < 3
        finally:
            await blocker.close()

        await store.save("m1", 0, state, events)
    finally:
        await engine.dispose()


async def test_a_plain_url_means_the_async_driver(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url.replace("sqlite+aiosqlite:", "sqlite:"))
    try:
        await SqlMatchStore(engine).ping()
        assert engine.dialect.driver == "aiosqlite"
    finally:
        await engine.dispose()
