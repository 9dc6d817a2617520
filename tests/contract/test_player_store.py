"""The contract of the players' stores, which the in-memory fake keeps as SQLite and
Postgres do: every test here runs on all three. Seats, results and ratings are written
by the unit of work that stores the match."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from scopa.domain.glicko import Rating, Result, rate
from scopa.domain.match import MatchState, Seat, join, new_match, rematch_of, resign
from scopa.domain.rated import AI_RATINGS
from scopa.domain.rules import make_rules
from scopa.infra.db import make_engine
from scopa.infra.stores import sql_stores
from scopa.service.ports import (
    Counts,
    HandleTaken,
    IdempotencyConflict,
    IdempotencyKeys,
    MatchRecord,
    MatchRepository,
    Player,
    PlayerBusy,
    PlayerGone,
    Players,
    PlayerToken,
    Standings,
    TooManyTokens,
)
from tests.fakes import FakeStore
from tests.support.stored import T0, Clock, answer, claim, token_hash
from tests.support.writes import create, save


@dataclass(frozen=True)
class Stores:
    matches: MatchRepository
    players: Players
    standings: Standings
    answers: IdempotencyKeys


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["fake", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, clock: Clock) -> AsyncIterator[Stores]:
    if request.param == "fake":
        fake = FakeStore(clock=clock)
        yield Stores(fake, fake.players, fake.standings, fake.keys)
        return
    engine = make_engine(str(request.getfixturevalue(f"{request.param}_url")))
    try:
        sql = sql_stores(engine, clock=clock)
        yield Stores(sql.matches, sql.players, sql.standings, sql.answers)
    finally:
        await engine.dispose()


def player(handle: str, origin: str = "here") -> Player:
    return Player(handle, handle.title(), "human", T0, origin)


def token(handle: str, n: int = 0) -> PlayerToken:
    return PlayerToken(f"t_{handle}{n}", handle, f"label {n}", T0 + n)


async def registered(store: Stores, handle: str, origin: str = "here") -> Player:
    new = player(handle, origin)
    await store.players.register(new, handle.lower(), token(handle), token_hash(handle))
    return new


async def seated(
    store: Stores, match_id: str, *holders: str | None, rated: bool = False
) -> MatchState:
    """A match dealt with a seat for each of ``holders`` (a handle, or None for the AI)."""
    seats = [Seat("ai", "easy") if h is None else Seat("human", name=h, player=h) for h in holders]
    state, events = new_match(make_rules(), seats, 1, rated=rated)
    record = MatchRecord(match_id, state, T0 + len(match_id))
    await create(store.matches, record, events, {})
    return state


async def test_a_player_reads_back_and_its_token_finds_it(store: Stores) -> None:
    ada = await registered(store, "ada")
    assert await store.players.player("ada") == ada
    assert await store.players.player("bea") is None
    assert await store.players.authenticate(token_hash("ada"), T0) == ada
    assert await store.players.authenticate(token_hash("nobody"), T0) is None
    [kept] = await store.players.tokens("ada")
    assert (kept.id, kept.label, kept.last_used_at) == ("t_ada0", "label 0", T0)


async def test_a_handle_key_is_registered_once(store: Stores) -> None:
    await registered(store, "ada")
    with pytest.raises(HandleTaken):
        await store.players.register(player("ADA"), "ada", token("ADA"), token_hash("ADA"))
    # The handle as people read it finds the one registered.
    assert await store.players.player("ADA") == await store.players.player("ada")
    assert await store.players.player("4DA") == await store.players.player("ada")
    assert (await store.players.player("adb")) is None
    assert await store.players.authenticate(token_hash("ADA"), T0) is None


async def test_a_token_is_marked_used_at_most_once_a_minute(store: Stores) -> None:
    await registered(store, "ada")
    await store.players.authenticate(token_hash("ada"), T0 + 30)
    [kept] = await store.players.tokens("ada")
    assert kept.last_used_at == T0 + 30
    await store.players.authenticate(token_hash("ada"), T0 + 60)
    [kept] = await store.players.tokens("ada")
    assert kept.last_used_at == T0 + 30
    await store.players.authenticate(token_hash("ada"), T0 + 91)
    [kept] = await store.players.tokens("ada")
    assert kept.last_used_at == T0 + 91


async def test_tokens_up_to_the_cap_and_a_revoked_one_finds_nobody(store: Stores) -> None:
    await registered(store, "ada")
    await store.players.add_token(token("ada", 1), token_hash("second"), cap=2)
    with pytest.raises(TooManyTokens):
        await store.players.add_token(token("ada", 2), token_hash("third"), cap=2)
    assert [t.id for t in await store.players.tokens("ada")] == ["t_ada0", "t_ada1"]
    assert await store.players.revoke("bea", "t_ada1") is None
    assert await store.players.revoke("ada", "t_ada1") == token_hash("second")
    assert await store.players.revoke("ada", "t_ada1") is None
    assert await store.players.authenticate(token_hash("second"), T0) is None
    assert await store.players.authenticate(token_hash("ada"), T0) is not None


async def test_a_new_token_keeps_its_answer_or_is_not_made(store: Stores) -> None:
    await registered(store, "ada")
    mine = claim(scope="token player:ada")
    assert await store.answers.begin_idempotent(mine) is None
    await store.players.add_token(token("ada", 1), token_hash("second"), 10, (mine, answer()))
    assert await store.answers.begin_idempotent(mine) == answer()
    # A key answered already: the token is not made.
    with pytest.raises(IdempotencyConflict):
        await store.players.add_token(token("ada", 2), token_hash("third"), 10, (mine, answer()))
    assert [t.id for t in await store.players.tokens("ada")] == ["t_ada0", "t_ada1"]


async def test_a_player_is_deleted_only_when_no_match_of_its_is_on(store: Stores) -> None:
    await registered(store, "ada")
    state = await seated(store, "m1", "ada", None)
    with pytest.raises(PlayerBusy):
        await store.players.delete("ada", T0)
    over, events = resign(state, 0)
    await save(store.matches, "m1", state.version, over, events)
    await store.players.delete("ada", T0)
    assert await store.players.player("ada") is None
    assert await store.players.authenticate(token_hash("ada"), T0) is None
    assert await store.players.tokens("ada") == []
    with pytest.raises(HandleTaken):
        await registered(store, "ada")
    # Its matches stay, with its result.
    assert (await store.standings.counts("ada")).lost == 1


async def test_a_deleted_player_loses_its_seat_tokens_and_is_seated_nowhere(
    store: Stores,
) -> None:
    await registered(store, "ada")
    seats = [Seat("human", name="ada", player="ada"), Seat("ai", "easy")]
    state, events = new_match(make_rules(), seats, 1)
    await create(store.matches, MatchRecord("m1", state, T0), events, {0: token_hash("seat")})
    over, more = resign(state, 0)
    await save(store.matches, "m1", state.version, over, more)
    await store.players.delete("ada", T0)
    assert await store.matches.get_for_token("m1", token_hash("seat")) == (
        await store.matches.get("m1"),
        None,
    )
    # A write seating it, decided before the deletion, stores nothing.
    with pytest.raises(PlayerGone):
        await seated(store, "m22", "ada", None)
    assert await store.matches.get("m22") is None
    lobby, more = new_match(make_rules(), [Seat("open"), Seat("ai", "easy")], 1)
    await create(store.matches, MatchRecord("m333", lobby, T0), more, {})
    joined, seating = join(lobby, 0, "ada", None, "ada")
    with pytest.raises(PlayerGone):
        await save(store.matches, "m333", lobby.version, joined, seating, {0: token_hash("j")})
    assert (await store.matches.get("m333")) == MatchRecord("m333", lobby, T0)


async def test_a_players_matches_come_newest_first_by_status(store: Stores) -> None:
    await registered(store, "ada")
    await seated(store, "m1", "ada", None)
    await seated(store, "m22", None, "ada")
    state = await seated(store, "m333", "ada", None)
    over, events = resign(state, 1)
    await save(store.matches, "m333", state.version, over, events)
    every = await store.standings.matches("ada", None, 10, None)
    assert [(r.id, seat) for r, seat in every] == [("m333", 0), ("m22", 1), ("m1", 0)]
    assert every[0][0].state == over
    finished = await store.standings.matches("ada", "finished", 10, None)
    assert [r.id for r, _ in finished] == ["m333"]
    after = (every[0][0].created_at, "m333")
    assert [r.id for r, _ in await store.standings.matches("ada", None, 1, after)] == ["m22"]
    assert await store.standings.counts("ada") == Counts(played=1, won=1, lost=0)


async def test_a_join_seats_its_player(store: Stores) -> None:
    await registered(store, "ada")
    await registered(store, "bea", origin="there")
    state, events = new_match(
        make_rules(), [Seat("human", name="ada", player="ada"), Seat("open")], 1
    )
    await create(store.matches, MatchRecord("m1", state, T0), events, {})
    joined, more = join(state, 1, "Bea", None, "bea")
    await save(store.matches, "m1", state.version, joined, more, {1: token_hash("seat")})
    [(record, seat)] = await store.standings.matches("bea", "active", 10, None)
    assert (record.id, seat) == ("m1", 1)
    assert await store.standings.origins(["ada", "bea", "zed"]) == {"ada": "here", "bea": "there"}


async def test_a_rematch_seat_reserved_for_a_player_is_its_from_the_offer_to_the_claim(
    store: Stores,
) -> None:
    await registered(store, "ada")
    await registered(store, "bea", origin="there")
    old = await seated(store, "m1", "ada", "bea")
    over, events = resign(old, 0)
    await save(store.matches, "m1", old.version, over, events)
    claims = {0: token_hash("a"), 1: token_hash("b")}
    state, events = rematch_of(over, 0, claims, 2, 3)
    await create(store.matches, MatchRecord("m22", state, T0 + 9), events, {0: token_hash("c")})
    [(waiting, seat)] = await store.standings.matches("bea", "waiting", 10, None)
    assert (waiting.id, seat) == ("m22", 1)
    with pytest.raises(PlayerBusy):
        await store.players.delete("bea", T0)
    claimed, more = join(state, 1, None, None, "bea")
    await save(store.matches, "m22", state.version, claimed, more, {1: token_hash("d")})
    every = await store.standings.matches("bea", None, 10, None)
    assert [(r.id, r.state.status, seat) for r, seat in every] == [
        ("m22", "active", 1),
        ("m1", "finished", 1),
    ]


async def test_a_rated_finish_rates_each_player_once(store: Stores) -> None:
    await registered(store, "ada")
    state = await seated(store, "m1", "ada", None, rated=True)
    over, events = resign(state, 1)
    await save(store.matches, "m1", state.version, over, events)
    [kept] = await store.standings.ratings("ada")
    expected = rate(Rating(), [Result(AI_RATINGS["easy"], 1.0)])
    assert (kept.format, kept.games) == ("2p-11", 1)
    assert kept.rating == pytest.approx(expected.rating)
    assert kept.deviation == pytest.approx(expected.deviation)
    # The AI's rating is fixed: nothing of it is stored.
    [(listed, rating)] = await store.standings.leaderboard("2p-11", True, 10, None)
    assert (listed.handle, rating) == ("ada", kept)
    assert await store.standings.leaderboard("2p-11", False, 10, None) == []


async def test_an_unrated_or_aborted_finish_rates_nobody(store: Stores) -> None:
    await registered(store, "ada")
    state = await seated(store, "m1", "ada", None)
    over, events = resign(state, 0)
    await save(store.matches, "m1", state.version, over, events)
    assert await store.standings.ratings("ada") == []
    assert (await store.standings.counts("ada")).played == 1


async def test_the_leaderboard_is_by_rating_then_handle_after_a_cursor(store: Stores) -> None:
    for handle in ("ann", "bob", "cat"):
        await registered(store, handle)
    for n, handle in enumerate(("ann", "bob", "cat", "cat")):
        state = await seated(store, state_id(n), handle, None, rated=True)
        over, events = resign(state, 1 if handle != "bob" else 0)
        await save(store.matches, state_id(n), state.version, over, events)
    board = await store.standings.leaderboard("2p-11", True, 10, None)
    assert [p.handle for p, _ in board] == ["cat", "ann", "bob"]
    assert [r.games for _, r in board] == [2, 1, 1]
    rest = await store.standings.leaderboard("2p-11", True, 10, (board[0][1].rating, "cat"))
    assert [p.handle for p, _ in rest] == ["ann", "bob"]


def state_id(n: int) -> str:
    return f"m{n}" * (n + 1)


async def test_a_players_rating_history_is_its_rated_matches_in_order(
    store: Stores, clock: Clock
) -> None:
    await registered(store, "ada")
    after = []
    for n in range(3):
        state = await seated(store, state_id(n), "ada", None, rated=True)
        clock.now += 10
        over, events = resign(state, 1 if n != 1 else 0)
        await save(store.matches, state_id(n), state.version, over, events)
        after.append((await store.standings.ratings("ada"))[0].rating)
    unrated = await seated(store, "u1", "ada", None)
    over, events = resign(unrated, 1)
    await save(store.matches, "u1", unrated.version, over, events)
    history = await store.standings.rating_history("ada", "2p-11", 10)
    assert [g.match_id for g in history] == [state_id(n) for n in range(3)]
    assert [g.rating for g in history] == pytest.approx(after)
    assert [g.finished_at for g in history] == [T0 + 10, T0 + 20, T0 + 30]
    assert [g.match_id for g in await store.standings.rating_history("ada", "2p-11", 2)] == [
        state_id(1),
        state_id(2),
    ]
    assert await store.standings.rating_history("ada", "2p-21", 10) == []
