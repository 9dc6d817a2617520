"""The service on the fakes: lost races reload and re-check, never a double move."""

from __future__ import annotations

import pytest

from domain.cards import parse_card
from domain.errors import InvalidSetup, NotYourTurn, SeatNotOpen
from domain.events import CardPlayed
from domain.match import Seat
from domain.ports import VersionConflict
from domain.service import InvalidCursor, MatchService, Setup
from tests.api.support import DECK
from tests.fakes import FakeBus, FakeStore

FIXED = Setup(
    seats=(Seat("human"), Seat("human")),
    decks=(tuple(parse_card(c) for c in DECK),),
    first_dealer=0,
    seed=7,
)


async def test_the_loser_of_a_race_reloads_and_gets_not_your_turn(
    service: MatchService, store: FakeStore
) -> None:
    created = await service.create(FIXED, None, "fp")
    match_id = created.match.id
    token = {t.seat: t.token for t in created.tokens}[1]
    # Both requests passed their checks on version 0; the first one's move is stored.
    first = await service.caller(match_id, token)
    second = await service.caller(match_id, token)
    await service.play(first, parse_card("5S"), None, None, None, "a")
    with pytest.raises(NotYourTurn):
        await service.play(
            second, parse_card("7C"), [parse_card("2C"), parse_card("5H")], 0, None, "b"
        )
    plays = [e for e in store.log[match_id] if isinstance(e, CardPlayed)]
    assert [p.card for p in plays] == ["5S"]
    assert store.records[match_id].state.version == 1


async def test_a_conflict_then_success_stores_one_move(store: FakeStore, bus: FakeBus) -> None:
    class FlakyStore(FakeStore):
        failures = 1

        async def save(self, *args: object, **kwargs: object) -> None:
            if self.failures:
                self.failures -= 1
                raise VersionConflict("someone else")
            await super().save(*args, **kwargs)  # type: ignore[arg-type]

    flaky = FlakyStore()
    service = MatchService(flaky, bus)
    created = await service.create(FIXED, None, "fp")
    caller = await service.caller(created.match.id, created.tokens[1].token)
    view = await service.play(caller, parse_card("5S"), None, None, None, "a")
    assert view.version == 1
    assert flaky.saves == 1
    assert bus.latest[created.match.id] == view.version + 1  # seq: deal_started, card_played


async def test_two_joins_of_one_seat_one_wins(service: MatchService) -> None:
    created = await service.create(Setup(seats=(Seat("human"), Seat("open"))), None, "fp")
    joined = await service.join(created.match.id, 1, None, "fp")
    assert joined.seat == 1
    with pytest.raises(SeatNotOpen):
        await service.join(created.match.id, 1, None, "fp")


@pytest.mark.parametrize("cursor", ["", "!!", "bm90IGpzb24", "WzEsMl0"])
async def test_bad_cursors_are_refused(service: MatchService, cursor: str) -> None:
    with pytest.raises(InvalidCursor):
        await service.lobby(10, cursor)


async def test_without_an_ai_an_ai_seat_is_an_invalid_setup(store: FakeStore, bus: FakeBus) -> None:
    service = MatchService(store, bus)
    setup = Setup(seats=(Seat("human"), Seat("ai", "hard")))
    with pytest.raises(InvalidSetup) as refused:
        await service.create(setup, None, "fp")
    assert refused.value.problems == [("seats[1].kind", "this server has no AI players")]
