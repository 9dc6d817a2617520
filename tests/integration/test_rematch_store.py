"""What seats need of the store, on SQLite and Postgres: a rematch stored with its offer in
one transaction, the seats' token hashes, and the lobby of active matches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from scopa.domain.events import RematchOffered, StoredEvent
from scopa.domain.match import MatchState, Seat, join, new_match, offer_rematch, rematch_of
from scopa.domain.rules import make_rules
from scopa.infra.db import make_engine
from scopa.infra.stores import SqlStores, sql_stores
from scopa.service.ports import Change, Idempotency, MatchRecord, StoredAnswer, VersionConflict
from tests.support.audit import audit
from tests.support.databases import PG_HOST
from tests.support.stored import T0, advance, stored, token_hash
from tests.support.writes import create, save


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlStores]:
    engine = make_engine(database_url)
    try:
        yield sql_stores(engine)
    finally:
        await engine.dispose()


async def finished(store: SqlStores, match_id: str) -> MatchState:
    """A stored two-player match played to its end, seats holding tokens "a" and "b"."""
    initial, events = new_match(make_rules(target=1), [Seat("human")] * 2, 3)
    await create(
        store.matches,
        MatchRecord(match_id, initial, T0),
        events,
        {0: token_hash("a"), 1: token_hash("b")},
    )
    state = initial
    while state.status == "active":
        before = state
        state, events = advance(state)
        await save(store.matches, match_id, before.version, state, events)
    return state


def the_rematch(
    old: MatchState, claims: dict[int, str]
) -> tuple[Change, MatchRecord, list[StoredEvent]]:
    new, events = rematch_of(old, 0, claims, seed=11, ai_secret=12)
    offered, offer_events = offer_rematch(old, "next")
    change = Change("old", old.version, offered, tuple(offer_events))
    return change, MatchRecord("next", new, T0 + 5), events


async def rematched(
    store: SqlStores,
    offer: Change,
    record: MatchRecord,
    events: list[StoredEvent],
    token_hashes: dict[int, str],
    answer: tuple[Idempotency, StoredAnswer] | None = None,
) -> None:
    """The rematch and its offer in one unit of work, as the use case stores them."""
    async with store.matches.unit_of_work() as uow:
        uow.add(record, events, token_hashes)
        uow.change(offer)
        uow.keep_answer(answer)
        await uow.commit()


async def test_the_seats_token_hashes(store: SqlStores) -> None:
    await stored(store, "m1", tokens=["a", "b"])
    await stored(store, "m2", "human", "open", tokens=["c"])
    assert await store.reads.seat_tokens("m1") == {0: token_hash("a"), 1: token_hash("b")}
    assert await store.reads.seat_tokens("m2") == {0: token_hash("c")}
    assert await store.reads.seat_tokens("none") == {}


async def test_a_rematch_and_its_offer_are_stored_together(store: SqlStores) -> None:
    old = await finished(store, "old")
    claims = await store.reads.seat_tokens("old")
    change, record, events = the_rematch(old, claims)
    request = Idempotency("rematch:x", "key", "fp")
    await rematched(
        store,
        change,
        record,
        events,
        {0: token_hash("new-a")},
        (request, StoredAnswer("fp", b"{}")),
    )
    kept = await store.matches.get("old")
    assert kept is not None
    assert kept.state == change.state
    assert (await store.reads.events("old", old.seq, 10)) == [RematchOffered(old.seq + 1, "next")]
    assert await store.matches.get("next") == record
    assert (await store.reads.initial("next")) == record.state
    assert await store.reads.seat_tokens("next") == {0: token_hash("new-a")}
    assert record.state.seats[1] == Seat("reserved", claim=token_hash("b"))
    assert await store.answers.begin_idempotent(request) == StoredAnswer("fp", b"{}")


async def test_a_rematch_of_a_moved_match_stores_nothing(store: SqlStores) -> None:
    old = await finished(store, "old")
    change, record, events = the_rematch(old, await store.reads.seat_tokens("old"))
    await rematched(store, change, record, events, {0: token_hash("new-a")})
    # A second offer decided on the same old version loses: no match, no event, no seat.
    stale = Change("old", old.version, change.state, change.events)
    later = MatchRecord("later", record.state, T0 + 6)
    with pytest.raises(VersionConflict):
        await rematched(store, stale, later, events, {0: token_hash("new-b")})
    assert await store.matches.get("later") is None
    assert await store.reads.seat_tokens("later") == {}
    assert len(await store.reads.events("old", 0, 1000)) == change.state.seq


async def test_active_matches_newest_first_after_a_cursor(store: SqlStores) -> None:
    for n in range(4):
        await stored(store, f"a{n}", created_at=T0 + n)
    await stored(store, "a4b", created_at=T0 + 3)  # a tie on created_at: by id, descending
    await stored(store, "w", "human", "open", created_at=T0 + 10)
    await finished(store, "f")
    ids = [r.id for r in await store.reads.active(10, None)]
    assert ids == ["a4b", "a3", "a2", "a1", "a0"]
    assert [r.id for r in await store.reads.active(2, (T0 + 3, "a4b"))] == ["a3", "a2"]
    assert [r.id for r in await store.reads.active(10, (T0 + 3, "a3"))] == ["a2", "a1", "a0"]
    assert (await store.reads.active(1, None))[0].state.status == "active"


async def test_a_match_waiting_on_reserved_seats_only_is_not_waiting_for_anyone(
    store: SqlStores,
) -> None:
    old = await finished(store, "old")
    change, record, events = the_rematch(old, await store.reads.seat_tokens("old"))
    await rematched(store, change, record, events, {0: token_hash("new-a")})
    await stored(store, "open", "human", "open")
    assert [r.id for r in await store.reads.waiting(10, None)] == ["open"]


@pytest.mark.postgres
async def test_on_postgres_the_offer_is_announced_on_commit(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    listener = await asyncpg.connect(
        f"postgresql://postgres@{PG_HOST}/{postgres_url.rsplit('/', 1)[1]}", timeout=5
    )
    heard: asyncio.Queue[str] = asyncio.Queue()
    await listener.add_listener("seats_test", lambda *args: heard.put_nowait(args[3]))
    try:
        store = sql_stores(engine, notify="seats_test")
        old = await finished(store, "old")
        change, record, events = the_rematch(old, await store.reads.seat_tokens("old"))
        await rematched(store, change, record, events, {0: token_hash("new-a")})
        expected = f"old:{change.state.seq}"  # after the saves' own announcements

        async def offer_heard() -> None:
            while await heard.get() != expected:
                pass

        await asyncio.wait_for(offer_heard(), 5)
    finally:
        await listener.close(timeout=5)
        await engine.dispose()


async def test_the_audit_replays_offers_and_claims(database_url: str, store: SqlStores) -> None:
    old = await finished(store, "old")
    claims = await store.reads.seat_tokens("old")
    change, record, events = the_rematch(old, claims)
    await rematched(store, change, record, events, {0: token_hash("new-a")})
    claimed, events = join(record.state, 1, "Bo", claims[1])
    await save(store.matches, "next", 0, claimed, events, {1: token_hash("new-b")})
    result = await audit(database_url, ["old", "next"])
    assert result.problems == []
    assert (result.matches, result.finished) == (2, 1)
