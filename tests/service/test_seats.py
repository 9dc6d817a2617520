"""Seats in the use cases, on the fakes: names, rematches and their claims, the record,
the active lobby, and the AI's secret apart from the seed."""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from scopa.contract.events import CardsDealtView, DealStartedView
from scopa.domain.errors import InvalidSetup, MatchNotActive, SeatNotOpen
from scopa.domain.events import RematchOffered, SeatJoined
from scopa.domain.match import MatchState, Seat, legal_moves
from scopa.domain.moves import Move
from scopa.service.changes import ai_seed
from scopa.service.errors import MatchNotFinished
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.fakes import FakeStore, FirstMoveAi, fake_service

TWO = Setup(seats=(Seat("human", name="Ada"), Seat("human", name="Bo")), rules={"target": 1})


async def played_out(service: Services, setup: Setup = TWO) -> tuple[str, dict[int, str]]:
    """A match of ``setup`` played to its end by first legal moves; its id and tokens."""
    created = await service.seating.create(setup, None, "fp")
    match_id = created.match.id
    tokens = {t.seat: t.token for t in created.tokens}
    while True:
        state = (await service.callers.load(match_id)).state
        if state.status != "active":
            return match_id, tokens
        if state.turn not in tokens:
            await service.ai_work.advance_ai(match_id)
            continue
        caller = await service.callers.caller(match_id, tokens[state.turn])
        move = legal_moves(state)[0]
        await service.play.play(caller, move.card, move.capture, None, None, "fp")


async def test_a_rematch_is_made_by_one_seat_and_claimed_by_the_other(
    service: Services, store: FakeStore
) -> None:
    old_id, old = await played_out(service)
    before = store.records[old_id].state
    first = await service.seating.rematch(await service.callers.caller(old_id, old[0]), None, "fp")
    assert first.created
    new_id = first.answer.match.id
    assert first.answer.seat == 0
    new = store.records[new_id].state
    assert [(s.kind, s.name) for s in new.seats] == [("human", "Ada"), ("reserved", "Bo")]
    assert (new.status, new.version, new.seq, store.log[new_id]) == ("waiting", 0, 0, [])
    assert (new.rules, new.seeded) == (before.rules, False)
    assert before.dealer is not None
    assert new.first_dealer == (before.dealer + 1) % 2
    # The old match changed once: version + 1 and its event.
    after = store.records[old_id].state
    assert (after.version, after.rematch) == (before.version + 1, new_id)
    assert store.log[old_id][-1] == RematchOffered(seq=before.seq + 1, match_id=new_id)
    # The first seat's new token plays the new match.
    assert (await service.callers.caller(new_id, first.answer.token)).seat == 0

    second = await service.seating.rematch(await service.callers.caller(old_id, old[1]), None, "fp")
    assert not second.created
    assert (second.answer.match.id, second.answer.seat) == (new_id, 1)
    assert second.answer.match.status == "active"
    claimed = store.records[new_id].state
    assert claimed.seats[1] == Seat("human", name="Bo")
    assert store.log[new_id][0] == SeatJoined(seq=1, seat=1, name="Bo")
    assert (await service.callers.caller(new_id, second.answer.token)).seat == 1

    for token in old.values():  # both hold their seats now
        with pytest.raises(SeatNotOpen):
            await service.seating.rematch(await service.callers.caller(old_id, token), None, "fp")
    assert store.records[old_id].state.version == before.version + 1


async def test_a_reserved_seat_is_claimed_by_join_with_the_old_token_only(
    service: Services, store: FakeStore
) -> None:
    old_id, old = await played_out(service)
    _, other = await played_out(service)
    made = await service.seating.rematch(await service.callers.caller(old_id, old[0]), None, "fp")
    new_id = made.answer.match.id
    for token in (None, "forged", made.answer.token, old[0], other[1]):
        with pytest.raises(SeatNotOpen):
            await service.seating.join(new_id, 1, None, "fp", token=token)
    assert store.records[new_id].state.version == 0
    joined = await service.seating.join(new_id, 1, None, "fp", name="Bob", token=old[1])
    state = store.records[new_id].state
    assert (joined.seat, state.status, state.seats[1]) == (1, "active", Seat("human", name="Bob"))


async def test_two_seats_asking_at_once_make_one_rematch(
    service: Services, store: FakeStore
) -> None:
    old_id, old = await played_out(service)
    # Both read the old match before either stored anything.
    zero, one = [await service.callers.caller(old_id, old[s]) for s in (0, 1)]
    first = await service.seating.rematch(zero, None, "fp")
    second = await service.seating.rematch(one, None, "fp")
    assert (first.created, second.created) == (True, False)
    assert second.answer.match.id == first.answer.match.id
    assert len(store.records) == 2
    assert sum(isinstance(e, RematchOffered) for e in store.log[old_id]) == 1


async def test_a_rematch_that_ended_unclaimed_makes_way_for_another(
    service: Services, store: FakeStore
) -> None:
    old_id, old = await played_out(service)
    first = await service.seating.rematch(await service.callers.caller(old_id, old[0]), None, "fp")
    gone = first.answer.match.id
    # It expired waiting for seat 1 (lifecycle's doing; here by hand).
    record = store.records[gone]
    ended = msgspec.structs.replace(record.state, status="finished", version=1)
    store.records[gone] = msgspec.structs.replace(record, state=ended)
    again = await service.seating.rematch(await service.callers.caller(old_id, old[1]), None, "fp")
    assert again.created
    assert again.answer.match.id != gone
    assert again.answer.seat == 1
    assert store.records[old_id].state.rematch == again.answer.match.id
    offers = [e.match_id for e in store.log[old_id] if isinstance(e, RematchOffered)]
    assert offers == [gone, again.answer.match.id]


async def test_only_a_finished_dealt_match_is_rematched(
    service: Services, store: FakeStore
) -> None:
    created = await service.seating.create(Setup(seats=(Seat("human"), Seat("human"))), None, "fp")
    caller = await service.callers.caller(created.match.id, created.tokens[0].token)
    with pytest.raises(MatchNotActive):
        await service.seating.rematch(caller, None, "fp")
    waiting = await service.seating.create(Setup(seats=(Seat("human"), Seat("open"))), None, "fp")
    match_id = waiting.match.id
    record = store.records[match_id]
    # Ended before it was ever dealt (aborted or expired, say).
    never = msgspec.structs.replace(record.state, status="finished")
    store.records[match_id] = msgspec.structs.replace(record, state=never)
    with pytest.raises(MatchNotActive):
        await service.seating.rematch(
            await service.callers.caller(match_id, waiting.tokens[0].token), None, "fp"
        )
    assert len(store.records) == 2


async def test_a_rematch_replays_for_its_key_and_token_only(
    service: Services, store: FakeStore
) -> None:
    old_id, old = await played_out(service)
    caller = await service.callers.caller(old_id, old[0])
    first = await service.seating.rematch(caller, "key-0123456789ab", "fp")
    again = await service.seating.rematch(caller, "key-0123456789ab", "fp")
    assert again == first
    assert len(store.records) == 2
    # The same key from the other seat is its own request: a claim.
    other = await service.seating.rematch(
        await service.callers.caller(old_id, old[1]), "key-0123456789ab", "fp"
    )
    assert (other.created, other.answer.match.id) == (False, first.answer.match.id)


async def test_the_record_waits_for_the_end_then_shows_everything(service: Services) -> None:
    created = await service.seating.create(TWO, None, "fp")
    caller = await service.callers.caller(created.match.id, None)
    with pytest.raises(MatchNotFinished):
        await service.records.record(caller)
    match_id, _ = await played_out(service)
    record = await service.records.record(await service.callers.caller(match_id, None))
    state = (await service.callers.load(match_id)).state
    assert record.seed == state.seed is not None
    assert record.match.fairness is not None
    assert record.match.fairness.commitment == hashlib.sha256(str(state.seed).encode()).hexdigest()
    assert record.match.hand is None
    assert record.first_dealer is None
    assert len(record.decks) >= state.deal
    assert all(sorted(deck) == sorted(record.decks[0]) and len(deck) == 40 for deck in record.decks)
    dealt = [e for e in record.events if isinstance(e, DealStartedView | CardsDealtView)]
    assert dealt
    assert all(e.hand is None and e.hands is not None and len(e.hands) == 2 for e in dealt)
    assert [e.seq for e in record.events] == list(range(1, state.seq + 1))


async def test_a_seeded_record_keeps_its_seed_to_itself(service: Services) -> None:
    match_id, _ = await played_out(service, Setup(seats=TWO.seats, rules={"target": 1}, seed=9))
    record = await service.records.record(await service.callers.caller(match_id, None))
    assert (record.seed, record.match.seeded, record.match.fairness) == (None, True, None)


async def test_the_active_lobby_is_newest_first_in_pages() -> None:
    moments = iter(range(1000))
    service = fake_service(FakeStore(), clock=lambda: float(next(moments)))
    made = [(await service.seating.create(TWO, None, "fp")).match.id for _ in range(5)]
    await service.seating.create(Setup(seats=(Seat("human"), Seat("open"))), None, "fp")  # waiting
    seen: list[str] = []
    cursor = None
    while True:
        page = await service.lobby.lobby(2, cursor, "active")
        seen += [m.id for m in page.matches]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == made[::-1]


async def test_a_match_waiting_only_on_reserved_seats_is_not_in_the_lobby(
    service: Services,
) -> None:
    old_id, old = await played_out(service)
    made = await service.seating.rematch(await service.callers.caller(old_id, old[0]), None, "fp")
    lobby = await service.lobby.lobby(10, None, "waiting")
    assert made.answer.match.status == "waiting"
    assert made.answer.match.id not in [m.id for m in lobby.matches]


class SeedRecordingAi(FirstMoveAi):
    def __init__(self) -> None:
        super().__init__()
        self.seeds: list[int] = []

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        self.seeds.append(seed)
        return await super().decide(state, seat, level, seed)


async def test_the_ais_randomness_is_not_the_seeds() -> None:
    """The AI draws from a secret apart from the shuffles' generator: derived from the seed
    in a seeded match, so two matches dealt from one seed get the same AI draws, and drawn
    at random in an unseeded one."""
    ai = SeedRecordingAi()
    store = FakeStore()
    service = fake_service(store, ai=ai)
    seats = (Seat("ai", "easy"), Seat("human"))
    from_generator = []
    for seed in (5, 5, None, None):
        created = await service.seating.create(Setup(seats, seed=seed, first_dealer=1), None, "fp")
        state = store.records[created.match.id].state
        from_generator.append(ai_seed(msgspec.structs.replace(state, ai_secret=0)))
        await service.ai_work.advance_ai(created.match.id)
    one, two, three, four = ai.seeds
    assert one == two
    assert three != four
    assert not set(ai.seeds) & set(from_generator)


async def test_a_scopone_match_plays_out_and_its_record_shows_ten_card_hands(
    service: Services,
) -> None:
    seats = (Seat("human", name="Ada"), Seat("ai", "easy"), Seat("ai", "easy"), Seat("ai", "easy"))
    setup = Setup(seats=seats, rules={"deal": "scopone", "target": 1})
    match_id, _ = await played_out(service, setup)
    record = await service.records.record(await service.callers.caller(match_id, None))
    state = (await service.callers.load(match_id)).state
    assert record.match.rules.deal == "scopone"
    assert record.match.fairness is not None
    assert record.match.fairness.commitment == hashlib.sha256(str(state.seed).encode()).hexdigest()
    assert not any(isinstance(e, CardsDealtView) for e in record.events)
    started = [e for e in record.events if isinstance(e, DealStartedView)]
    assert len(started) == state.deal
    assert all(e.table == () for e in started)
    assert all(e.hands is not None and [len(h) for h in e.hands] == [10] * 4 for e in started)


async def test_scopone_for_two_or_rated_is_refused_naming_each_problem(service: Services) -> None:
    with pytest.raises(InvalidSetup) as refused:
        await service.seating.create(
            Setup(seats=TWO.seats, rules={"deal": "scopone", "hand_size": 6}), None, "fp"
        )
    assert [name for name, _ in refused.value.problems] == ["rules.hand_size", "rules.deal"]
    four = (Seat("human"), Seat("open"), Seat("open"), Seat("open"))
    with pytest.raises(InvalidSetup) as rated:
        await service.seating.create(
            Setup(seats=four, rules={"deal": "scopone"}, rated=True), None, "fp"
        )
    assert ("rated", "rated matches are dealt as scopa, not scopone") in rated.value.problems
