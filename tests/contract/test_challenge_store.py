"""The contract of the challenge stores, kept by the fake as by SQLite and Postgres: every
test runs on all three. A challenge accepted is settled by the unit of work that adds its
match: both or neither."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from scopa.domain.match import MatchState, Seat, new_match
from scopa.domain.rules import Rules, make_rules
from scopa.infra.db import make_engine
from scopa.infra.stores import sql_stores
from scopa.service.limits import QuotaExceeded
from scopa.service.ports import (
    Challenge,
    ChallengeGone,
    Challenges,
    IdempotencyConflict,
    IdempotencyKeys,
    MatchRecord,
    MatchRepository,
    Player,
    PlayerGone,
    Players,
    PlayerToken,
    Settlement,
)
from tests.fakes import FakeStore
from tests.support.stored import T0, Clock, answer, claim, token_hash


@dataclass(frozen=True)
class Stores:
    matches: MatchRepository
    players: Players
    challenges: Challenges
    answers: IdempotencyKeys


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["fake", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, clock: Clock) -> AsyncIterator[Stores]:
    if request.param == "fake":
        fake = FakeStore(clock=clock)
        stores = Stores(fake, fake.players, fake.challenges, fake.keys)
    else:
        engine = make_engine(str(request.getfixturevalue(f"{request.param}_url")))
        sql = sql_stores(engine, clock=clock)
        stores = Stores(sql.matches, sql.players, sql.challenges, sql.answers)
    for handle in ("ada", "bea"):
        await stores.players.register(
            Player(handle, handle, "bot", T0, handle),
            handle,
            PlayerToken(f"t_{handle}", handle, "first", T0),
            token_hash(handle),
        )
    try:
        yield stores
    finally:
        if request.param != "fake":
            await engine.dispose()


def challenge(n: int, opponent: str | None = "bea", at: float = T0) -> Challenge:
    return Challenge(f"c_{n}", "ada", opponent, None, Rules(), False, "pending", at, at + 600.0)


async def made(store: Stores, *challenges: Challenge, per_minute: int = 0) -> None:
    for c in challenges:
        news = ((c.opponent, f"made {c.id}".encode()),) if c.opponent else ()
        await store.challenges.add(c, news, per_minute=per_minute, pending=0)


async def test_a_challenge_reads_back_and_lists_for_both_players(store: Stores) -> None:
    await made(store, challenge(1), challenge(2, None, T0 + 1))
    assert await store.challenges.challenge("c_1") == challenge(1)
    assert await store.challenges.challenge("c_9") is None
    assert [c.id for c in await store.challenges.of("bea", 10, None)] == ["c_1"]
    assert [c.id for c in await store.challenges.of("ada", 10, None)] == ["c_2", "c_1"]
    assert [c.id for c in await store.challenges.open(10)] == ["c_2"]


async def test_a_players_challenges_page_newest_first_after_a_cursor(store: Stores) -> None:
    # Two at one instant: the id orders them, as the cursor (created_at, id) does.
    await made(store, challenge(1), challenge(2), challenge(3, at=T0 + 1), challenge(4, at=T0 + 2))
    assert [c.id for c in await store.challenges.of("bea", 2, None)] == ["c_4", "c_3"]
    assert [c.id for c in await store.challenges.of("bea", 2, (T0 + 1, "c_3"))] == ["c_2", "c_1"]
    assert [c.id for c in await store.challenges.of("bea", 5, (T0, "c_2"))] == ["c_1"]
    assert await store.challenges.of("bea", 5, (T0, "c_1")) == []


async def test_a_challenge_keeps_its_answer_or_is_not_made(store: Stores) -> None:
    mine = claim(scope="challenge player:ada")
    assert await store.answers.begin_idempotent(mine) is None
    await store.challenges.add(challenge(1), (), per_minute=0, pending=0, answer=(mine, answer()))
    assert await store.answers.begin_idempotent(mine) == answer()
    # A key answered already: the challenge is not made, nor its news told.
    news = (("bea", b"made c_2"),)
    with pytest.raises(IdempotencyConflict):
        await store.challenges.add(
            challenge(2), news, per_minute=0, pending=0, answer=(mine, answer())
        )
    assert await store.challenges.challenge("c_2") is None
    assert await store.challenges.latest("bea") == 0


async def test_news_is_numbered_per_player_from_one(store: Stores) -> None:
    await made(store, challenge(1), challenge(2))
    assert await store.challenges.inbox("bea", 0, 10) == [(1, b"made c_1"), (2, b"made c_2")]
    assert await store.challenges.inbox("bea", 1, 10) == [(2, b"made c_2")]
    assert await store.challenges.latest("bea") == 2
    assert await store.challenges.latest("ada") == 0


async def test_a_challenger_is_held_to_its_challenges_a_minute(store: Stores, clock: Clock) -> None:
    await made(store, challenge(1), challenge(2, at=T0 + 20), per_minute=2)
    clock.now += 30
    with pytest.raises(QuotaExceeded) as refused:
        await made(store, challenge(3, at=clock.now), per_minute=2)
    assert refused.value.retry_after == 30  # the first leaves the minute 30 s on
    assert await store.challenges.challenge("c_3") is None
    clock.now += 31
    await made(store, challenge(3, at=clock.now), per_minute=2)
    with pytest.raises(QuotaExceeded):
        await store.challenges.add(challenge(4, at=clock.now), (), per_minute=0, pending=3)


async def kept(store: Stores, challenge_id: str) -> Challenge:
    found = await store.challenges.challenge(challenge_id)
    assert found is not None, challenge_id
    return found


async def test_a_settled_or_expired_challenge_is_gone(store: Stores, clock: Clock) -> None:
    await made(store, challenge(1), challenge(2))
    await store.challenges.settle(Settlement("c_1", "declined", None, (("ada", b"no"),)))
    assert (await kept(store, "c_1")).status == "declined"
    assert await store.challenges.inbox("ada", 0, 10) == [(1, b"no")]
    with pytest.raises(ChallengeGone):
        await store.challenges.settle(Settlement("c_1", "cancelled"))
    clock.now += 600
    assert (await kept(store, "c_2")).status == "expired"
    with pytest.raises(ChallengeGone):
        await store.challenges.settle(Settlement("c_2", "cancelled"))
    assert await store.challenges.of("bea", 10, None) == []


def dealt() -> MatchState:
    seats = [Seat("human", name="ada", player="ada"), Seat("human", name="bea", player="bea")]
    return new_match(make_rules(), seats, 1)[0]


async def test_an_accepted_challenge_and_its_match_are_stored_together(store: Stores) -> None:
    await made(store, challenge(1))
    state = dealt()
    async with store.matches.unit_of_work() as uow:
        uow.add(MatchRecord("m1", state, T0), [], {})
        uow.settle(Settlement("c_1", "accepted", "m1", (("ada", b"yes"),)))
        await uow.commit()
    assert (await kept(store, "c_1")).match_id == "m1"
    assert await store.challenges.inbox("ada", 0, 10) == [(1, b"yes")]
    # Settling it again undoes the second match with it.
    async with store.matches.unit_of_work() as uow:
        uow.add(MatchRecord("m2", state, T0), [], {})
        uow.settle(Settlement("c_1", "accepted", "m2", (("ada", b"again"),)))
        with pytest.raises(ChallengeGone):
            await uow.commit()
    assert await store.matches.get("m2") is None
    assert await store.challenges.latest("ada") == 1


async def test_a_deleted_players_challenges_end_and_it_challenges_no_more(store: Stores) -> None:
    received = Challenge("c_3", "bea", "ada", None, Rules(), False, "pending", T0, T0 + 600.0)
    await made(store, challenge(1), challenge(2, None))
    await store.challenges.add(received, (("ada", b"made c_3"),), per_minute=0, pending=0)
    told = await store.players.delete("ada", T0)
    ended = [await store.challenges.challenge(f"c_{n}") for n in (1, 2, 3)]
    assert [(c.id, c.status) for c in ended if c is not None] == [
        ("c_1", "cancelled"),
        ("c_2", "cancelled"),
        ("c_3", "declined"),
    ]
    assert await store.challenges.open(10) == []
    assert await store.challenges.of("bea", 10, None) == []
    # Bea heard of both (after the news of c_1), and the deletion says what it announced.
    news = await store.challenges.inbox("bea", 1, 10)
    heard = sorted((json.loads(body)["id"], json.loads(body)["status"]) for _, body in news)
    assert heard == [("c_1", "cancelled"), ("c_3", "declined")]
    assert [n for n, _ in news] == [2, 3]
    assert ("@bea", 3) in told
    with pytest.raises(PlayerGone):
        await made(store, challenge(4))
    assert await store.challenges.challenge("c_4") is None
