"""The moments of a match on the fakes, on a clock the test moves: expiry, abandonment,
turn clocks (autoplay and forfeit), resign and abort, and racing enforcers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scopa.domain.cards import parse_card
from scopa.domain.errors import CannotAbort, MatchNotActive, NotYourTurn, SeatNotOpen
from scopa.domain.events import CardPlayed, MatchFinished
from scopa.domain.match import MatchState, Seat, legal_moves, new_match
from scopa.domain.moves import Move
from scopa.domain.rules import make_rules
from scopa.service.errors import IdempotencyKeyReused, StaleVersion
from scopa.service.lifecycle import Lifecycle
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.api.support import DECK
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, fake_service

T0 = 1_800_000_000.0
WAIT, IDLE = 60.0, 600.0
HUMANS = (Seat("human"), Seat("human"))


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class LevelsAi(FirstMoveAi):
    """The first legal move, noting the level each decision was asked at."""

    def __init__(self, pause: float = 0.0) -> None:
        super().__init__()
        self.levels_asked: list[str] = []
        self.pause = pause

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        self.levels_asked.append(level)
        await asyncio.sleep(self.pause)  # long enough for a rival to decide on the same version
        return await super().decide(state, seat, level, seed)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ai() -> LevelsAi:
    return LevelsAi()


@pytest.fixture
def service(store: FakeStore, bus: FakeBus, ai: LevelsAi, clock: Clock) -> Services:
    lifecycle = Lifecycle(waiting_ttl=WAIT, idle_ttl=IDLE)
    return fake_service(store, bus, ai=ai, clock=clock, lifecycle=lifecycle)


def setup(*seats: Seat, **rules: Any) -> Setup:
    """Dealer 0 with the fixed deck of the API tests: seat 1 leads."""
    return Setup(
        seats=seats or HUMANS,
        rules=rules,
        decks=(tuple(parse_card(c) for c in DECK),),
        first_dealer=0,
        seed=7,
    )


async def new(service: Services, *seats: Seat, **rules: Any) -> tuple[str, dict[int, str]]:
    created = await service.seating.create(setup(*seats, **rules), None, "fp")
    return created.match.id, {t.seat: t.token for t in created.tokens}


async def first_legal(service: Services, match_id: str, token: str) -> Any:
    caller = await service.callers.caller(match_id, token, required=True)
    move = legal_moves(caller.record.state)[0]
    return await service.play.play(caller, move.card, move.capture, None, None, "fp")


def finished(store: FakeStore, match_id: str) -> MatchFinished:
    last = store.log[match_id][-1]
    assert isinstance(last, MatchFinished)
    return last


async def test_each_change_stores_the_next_moment(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    waiting, _ = await new(service, Seat("human"), Seat("open"))
    unclocked, _ = await new(service)
    clocked, seats = await new(service, turn_seconds=30)
    ai_leads, _ = await new(service, Seat("human"), Seat("ai", "easy"))
    due = {m: store.records[m].due_at for m in (waiting, unclocked, clocked, ai_leads)}
    assert due == {waiting: T0 + WAIT, unclocked: T0 + IDLE, clocked: T0 + 30, ai_leads: None}

    clock.now += 7
    view = await first_legal(service, clocked, seats[1])
    assert store.records[clocked].due_at == T0 + 7 + 30  # seat 0's turn, a full clock
    assert view.turn_deadline == "2027-01-15T08:00:37.000Z"
    joined = await service.seating.join(waiting, 1, None, "fp")
    assert store.records[waiting].due_at == T0 + 7 + IDLE  # active now: a human's turn
    assert joined.seat == 1


async def test_a_waiting_match_expires_and_leaves_the_lobby(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    match_id, _ = await new(service, Seat("human"), Seat("open"))
    clock.now += WAIT - 1
    assert await service.moments.due(10) == []
    await service.moments.enforce(match_id)
    assert store.records[match_id].state.status == "waiting"

    clock.now += 1
    assert await service.moments.due(10) == [match_id]
    await service.moments.enforce(match_id)
    state = store.records[match_id].state
    assert (state.status, state.end_reason, state.winner, state.version) == (
        "finished", "expired", None, 1,
    )  # fmt: skip
    assert finished(store, match_id).reason == "expired"
    assert store.records[match_id].due_at is None
    assert await service.moments.due(10) == []
    assert (await service.lobby.lobby(10, None)).matches == ()
    with pytest.raises(SeatNotOpen):
        await service.seating.join(match_id, 1, None, "fp")


async def test_a_join_after_the_wait_ran_out_meets_the_expiry(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    """Nobody enforced it yet (the runner is up to 2 s late): the join does it first."""
    match_id, _ = await new(service, Seat("human"), Seat("open"))
    clock.now += WAIT
    with pytest.raises(SeatNotOpen):
        await service.seating.join(match_id, 1, None, "fp")
    assert store.records[match_id].state.end_reason == "expired"


async def test_an_idle_human_turn_without_a_clock_is_abandoned(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    match_id, seats = await new(service)
    clock.now += IDLE / 2
    await first_legal(service, match_id, seats[1])
    clock.now += IDLE - 1  # idle since the move, not since the start
    await service.moments.enforce(match_id)
    assert store.records[match_id].state.status == "active"
    clock.now += 1
    await service.moments.enforce(match_id)
    state = store.records[match_id].state
    assert (state.end_reason, state.winner) == ("abandoned", None)
    assert finished(store, match_id).reason == "abandoned"


def test_a_rated_turn_without_a_clock_lasts_minutes_not_a_week() -> None:
    """Its passing loses the match (domain ``abandon``): a short limit, by default."""
    players = (Seat("human", player="ada"), Seat("human", player="bea"))
    rated, _ = new_match(make_rules(), players, 7, rated=True)
    unrated, _ = new_match(make_rules(), players, 7)
    lifecycle = Lifecycle()
    assert lifecycle.due_at(unrated, T0, T0) == T0 + lifecycle.idle_ttl
    assert lifecycle.due_at(rated, T0, T0) == T0 + 300
    clocked, _ = new_match(make_rules(turn_seconds=30), players, 7, rated=True)
    assert lifecycle.due_at(clocked, T0, T0) == T0 + 30


async def test_forfeit_in_four_players_loses_the_seats_team(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    match_id, _ = await new(service, *(Seat("human"),) * 4, turn_seconds=5, on_timeout="forfeit")
    turn = store.records[match_id].state.turn
    assert turn is not None
    clock.now += 5
    await service.moments.enforce(match_id)
    state = store.records[match_id].state
    assert (state.end_reason, state.winner) == ("timeout", 1 - turn % 2)
    assert [type(e) for e in store.log[match_id][-1:]] == [MatchFinished]


async def test_autoplay_three_times_in_a_row_then_timeout(
    service: Services, store: FakeStore, clock: Clock, ai: LevelsAi
) -> None:
    match_id, seats = await new(service, turn_seconds=5)
    for _ in range(3):
        clock.now += 5
        assert await service.moments.due(10) == [match_id]
        await service.moments.enforce(match_id)  # seat 1's time runs out
        if store.records[match_id].state.status == "active":
            await first_legal(service, match_id, seats[0])  # seat 0 plays in time
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert [(p.seat, p.auto) for p in plays] == [
        (1, True), (0, False), (1, True), (0, False), (1, True),
    ]  # fmt: skip
    assert ai.levels_asked == ["hard"] * 3
    state = store.records[match_id].state
    assert (state.status, state.end_reason, state.winner) == ("finished", "timeout", 0)
    assert finished(store, match_id).reason == "timeout"


async def test_a_move_after_its_deadline_meets_the_timeout(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    match_id, seats = await new(service, turn_seconds=5)
    clock.now += 5.001
    caller = await service.callers.caller(match_id, seats[1], required=True)
    with pytest.raises(NotYourTurn):
        await service.play.play(caller, parse_card("5S"), None, None, None, "fp")
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert [(p.seat, p.auto) for p in plays] == [(1, True)]

    forfeit, others = await new(service, turn_seconds=5, on_timeout="forfeit")
    clock.now += 5
    caller = await service.callers.caller(forfeit, others[1], required=True)
    with pytest.raises(MatchNotActive):
        await service.play.play(caller, parse_card("5S"), None, None, None, "fp")
    assert store.records[forfeit].state.end_reason == "timeout"


async def test_a_deadline_long_past_is_acted_on_once_then_a_full_clock(
    service: Services, store: FakeStore, clock: Clock
) -> None:
    """As after a restart: the deadline passed an hour ago, while nothing ran."""
    match_id, _ = await new(service, turn_seconds=5)
    clock.now += 3600
    await service.moments.enforce(match_id)
    await service.moments.enforce(match_id)
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert [(p.seat, p.auto) for p in plays] == [(1, True)]
    assert store.records[match_id].due_at == clock.now + 5
    assert await service.moments.due(10) == []


async def test_an_ai_seat_after_an_autoplay_is_woken(
    store: FakeStore, bus: FakeBus, ai: LevelsAi, clock: Clock
) -> None:
    woken: list[str] = []
    service = fake_service(store, bus, ai=ai, clock=clock, on_change=woken.append)
    match_id, _ = await new(service, Seat("ai", "easy"), Seat("human"), turn_seconds=5)
    clock.now += 5
    await service.moments.enforce(match_id)
    assert woken == [match_id]
    assert store.records[match_id].due_at is None  # the AI's turn has no clock


async def test_two_processes_racing_on_one_deadline_make_one_autoplay(
    store: FakeStore, bus: FakeBus, clock: Clock
) -> None:
    # Each decides on the same version (the AI pauses); the store takes the first save.
    here = fake_service(store, bus, ai=LevelsAi(pause=0.01), clock=clock)
    there = fake_service(store, bus, ai=LevelsAi(pause=0.01), clock=clock)
    match_id, _ = await new(here, turn_seconds=5)
    clock.now += 5
    await asyncio.gather(here.moments.enforce(match_id), there.moments.enforce(match_id))
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert len(plays) == 1
    assert store.records[match_id].state.version == 1
    assert [e.seq for e in store.log[match_id]] == [1, 2]


async def test_resign_and_abort_check_the_rules_then_the_version(
    service: Services, store: FakeStore
) -> None:
    match_id, seats = await new(service)
    caller = await service.callers.caller(match_id, seats[0], required=True)
    with pytest.raises(StaleVersion):
        await service.play.abort(caller, 3, None, "abort")
    await first_legal(service, match_id, seats[1])
    caller = await service.callers.caller(match_id, seats[0], required=True)
    with pytest.raises(CannotAbort):
        await service.play.abort(caller, 3, None, "abort")  # refused before the version
    view = await service.play.resign(caller, 1, "k", "resign")
    assert (view.status, view.end_reason, view.winner, view.you) == ("finished", "resigned", 1, 0)
    again = await service.play.resign(caller, 1, "k", "resign")
    assert again == view
    with pytest.raises(IdempotencyKeyReused):
        await service.play.abort(caller, None, "k", "abort")
    caller = await service.callers.caller(match_id, seats[1], required=True)
    with pytest.raises(MatchNotActive):
        await service.play.resign(caller, 7, None, "resign")
    assert [type(e) for e in store.log[match_id]].count(MatchFinished) == 1
