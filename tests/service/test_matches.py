"""The service on the fakes: lost races reload and re-check, never a double move."""

from __future__ import annotations

import time

import pytest

from scopa.contract.views import MatchView
from scopa.domain.cards import parse_card
from scopa.domain.errors import InvalidSetup, NotYourTurn, SeatNotOpen
from scopa.domain.events import CardPlayed, StoredEvent
from scopa.domain.match import Seat, legal_moves
from scopa.service.errors import InvalidCursor, InvalidToken
from scopa.service.ports import MatchRecord, VersionConflict
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.api.support import DECK
from tests.fakes import FakeBus, FakeReads, FakeStore, FakeUnitOfWork, fake_service

FIXED = Setup(
    seats=(Seat("human"), Seat("human")),
    decks=(tuple(parse_card(c) for c in DECK),),
    first_dealer=0,
    seed=7,
)


async def test_the_loser_of_a_race_reloads_and_gets_not_your_turn(
    service: Services, store: FakeStore
) -> None:
    created = await service.seating.create(FIXED, None, "fp")
    match_id = created.match.id
    token = {t.seat: t.token for t in created.tokens}[1]
    # Both requests passed their checks on version 0; the first one's move is stored.
    first = await service.callers.caller(match_id, token)
    second = await service.callers.caller(match_id, token)
    await service.play.play(first, parse_card("5S"), None, None, None, "a")
    with pytest.raises(NotYourTurn):
        await service.play.play(
            second, parse_card("7C"), [parse_card("2C"), parse_card("5H")], 0, None, "b"
        )
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert [p.card for p in plays] == ["5S"]
    assert store.records[match_id].state.version == 1


async def test_a_conflict_then_success_stores_one_move(store: FakeStore, bus: FakeBus) -> None:
    class FlakyStore(FakeStore):
        failures = 1

        def commit(self, work: FakeUnitOfWork) -> None:
            if self.failures and work.changes:
                self.failures -= 1
                raise VersionConflict("someone else")
            super().commit(work)

    flaky = FlakyStore()
    service = fake_service(flaky, bus)
    created = await service.seating.create(FIXED, None, "fp")
    caller = await service.callers.caller(created.match.id, created.tokens[1].token)
    view = await service.play.play(caller, parse_card("5S"), None, None, None, "a")
    assert view.version == 1
    assert flaky.saves == 1
    assert bus.latest[created.match.id] == view.version + 1  # seq: deal_started, card_played


async def test_two_joins_of_one_seat_one_wins(service: Services) -> None:
    created = await service.seating.create(Setup(seats=(Seat("human"), Seat("open"))), None, "fp")
    joined = await service.seating.join(created.match.id, 1, None, "fp")
    assert joined.seat == 1
    with pytest.raises(SeatNotOpen):
        await service.seating.join(created.match.id, 1, None, "fp")


@pytest.mark.parametrize("cursor", ["", "!!", "bm90IGpzb24", "WzEsMl0"])
async def test_bad_cursors_are_refused(service: Services, cursor: str) -> None:
    with pytest.raises(InvalidCursor):
        await service.lobby.lobby(10, cursor)


async def test_without_an_ai_an_ai_seat_is_an_invalid_setup(store: FakeStore, bus: FakeBus) -> None:
    service = fake_service(store, bus)
    setup = Setup(seats=(Seat("human"), Seat("ai", "hard")))
    with pytest.raises(InvalidSetup) as refused:
        await service.seating.create(setup, None, "fp")
    assert refused.value.problems == [("seats[1].kind", "this server has no AI players")]


class CountingReads(FakeReads):
    event_reads = 0

    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        self.event_reads += 1
        return await super().events(match_id, after, limit)


class CountingStore(FakeStore):
    """Counts the reads of a match, to show which moves were decided from memory, and the
    reads of its events."""

    match_reads = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.reads = self.counting = CountingReads(self)

    async def get(self, match_id: str) -> MatchRecord | None:
        self.match_reads += 1
        return await super().get(match_id)

    async def get_for_token(
        self, match_id: str, token_hash: str
    ) -> tuple[MatchRecord, int | None] | None:
        self.match_reads += 1
        return await super().get_for_token(match_id, token_hash)


async def two_processes() -> tuple[CountingStore, Services, Services, str, dict[int, str]]:
    """One store, two services (two server processes); the first created the match."""
    store = CountingStore()
    here, there = fake_service(store), fake_service(store)
    created = await here.seating.create(FIXED, None, "fp")
    return store, here, there, created.match.id, {t.seat: t.token for t in created.tokens}


async def first_legal(service: Services, match_id: str, token: str) -> MatchView:
    caller = await service.callers.caller(match_id, token, required=True)
    move = legal_moves(caller.record.state)[0]
    return await service.play.play(caller, move.card, move.capture, None, None, "fp")


async def test_a_move_from_memory_reads_nothing_and_is_stored() -> None:
    store, here, _, match_id, tokens = await two_processes()
    caller = await here.callers.caller(match_id, tokens[1], required=True, recent=True)
    assert not caller.fresh
    view = await here.play.play(caller, parse_card("5S"), None, None, None, "a")
    assert store.match_reads == 0
    assert view.version == store.records[match_id].state.version == 1


async def test_a_stale_memory_never_refuses_a_legal_move() -> None:
    store, here, there, match_id, tokens = await two_processes()
    # The other process plays seat 1's move: here still remembers seat 1 to play.
    await first_legal(there, match_id, tokens[1])
    stored = store.records[match_id].state
    assert stored.turn == 0
    caller = await here.callers.caller(match_id, tokens[0], required=True, recent=True)
    assert caller.record.state.turn == 1  # remembered, and stale
    move = legal_moves(stored)[0]
    view = await here.play.play(caller, move.card, move.capture, None, None, "b")
    assert view.version == store.records[match_id].state.version == 2
    assert store.match_reads == 2  # the refusal was checked against the store, once


async def test_a_stale_memory_never_accepts_a_move_the_store_refuses() -> None:
    store, here, there, match_id, tokens = await two_processes()
    await first_legal(there, match_id, tokens[1])
    # Seat 1 again, through the process that still thinks it is seat 1's turn.
    caller = await here.callers.caller(match_id, tokens[1], required=True, recent=True)
    with pytest.raises(NotYourTurn):
        await here.play.play(caller, parse_card("5S"), None, None, None, "c")
    assert len([e for e in store.log[match_id] if isinstance(e, CardPlayed)]) == 1
    assert store.records[match_id].state.version == 1


async def test_an_unknown_token_is_judged_by_the_store() -> None:
    store, here, _, match_id, _ = await two_processes()
    with pytest.raises(InvalidToken):
        await here.callers.caller(match_id, "not-a-token", required=True, recent=True)
    assert store.match_reads == 1


async def test_a_waiting_long_poll_reads_the_store_only_when_woken() -> None:
    store, here, _, match_id, tokens = await two_processes()
    caller = await here.callers.caller(match_id, tokens[0])
    last = store.records[match_id].state.seq
    started = time.monotonic()

    page = await here.records.events(caller, last, 2.5)

    assert page.events == ()
    assert time.monotonic() - started >= 2.4
    assert store.counting.event_reads == 2  # on arrival, and when the wait ran out
