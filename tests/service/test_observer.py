"""What the use cases tell their observer (the metrics): created, moves, endings, streams;
and the active matches counted from the store."""

from __future__ import annotations

from collections import Counter
from typing import Unpack

from scopa.domain.match import Seat, legal_moves
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.fakes import FakeBus, FakeStore, FirstMoveAi, ServiceOptions, as_is, fake_service
from tests.service.test_lifecycle import Clock, first_legal, new
from tests.service.test_matches import FIXED


class Recorder:
    """Every note, as (what, detail)."""

    def __init__(self) -> None:
        self.notes: Counter[tuple[str, str]] = Counter()

    def match_created(self) -> None:
        self.notes["created", ""] += 1

    def match_finished(self, end_reason: str) -> None:
        self.notes["finished", end_reason] += 1

    def move_played(self, player: str) -> None:
        self.notes["move", player] += 1

    def stream_opened(self) -> None:
        self.notes["stream", "opened"] += 1

    def stream_closed(self) -> None:
        self.notes["stream", "closed"] += 1


def observed(
    store: FakeStore, bus: FakeBus, **kwargs: Unpack[ServiceOptions]
) -> tuple[Services, Recorder]:
    recorder = Recorder()
    options: ServiceOptions = {**kwargs, "observer": recorder}
    return fake_service(store, bus, **options), recorder


async def play_out(service: Services, match_id: str, tokens: dict[int, str]) -> int:
    """Every human seat plays its first legal move until the end; the moves played."""
    played = 0
    while True:
        state = (await service.callers.load(match_id)).state
        if state.status != "active":
            return played
        assert state.turn is not None
        caller = await service.callers.caller(match_id, tokens[state.turn], required=True)
        move = legal_moves(caller.record.state)[0]
        await service.play.play(caller, move.card, move.capture, None, None, f"fp{played}")
        played += 1


async def test_a_match_played_out_is_created_moved_and_finished_once(
    store: FakeStore, bus: FakeBus
) -> None:
    service, recorder = observed(store, bus)
    created = await service.seating.create(FIXED, None, "fp")
    assert recorder.notes == {("created", ""): 1}
    assert await service.lobby.active_matches() == 1
    tokens = {t.seat: t.token for t in created.tokens}
    played = await play_out(service, created.match.id, tokens)
    assert played >= 36
    assert recorder.notes == {
        ("created", ""): 1,
        ("move", "human"): played,
        ("finished", "score"): 1,
    }
    assert await service.lobby.active_matches() == 0


async def test_replays_and_refusals_note_nothing(store: FakeStore, bus: FakeBus) -> None:
    service, recorder = observed(store, bus)
    first = await service.seating.create(FIXED, "key-key-key-key-1", "fp")
    again = await service.seating.create(FIXED, "key-key-key-key-1", "fp")
    assert again.match.id == first.match.id
    caller = await service.callers.caller(first.match.id, first.tokens[1].token, required=True)
    move = legal_moves(caller.record.state)[0]
    await service.play.play(caller, move.card, move.capture, None, "move-key", "m")
    await service.play.play(caller, move.card, move.capture, None, "move-key", "m")
    assert recorder.notes == {("created", ""): 1, ("move", "human"): 1}


async def test_ai_moves_are_noted_as_the_ais(store: FakeStore, bus: FakeBus) -> None:
    service, recorder = observed(store, bus, ai=FirstMoveAi())
    setup = Setup(seats=(Seat("ai", "easy"), Seat("ai", "easy")), seed=3)
    created = await service.seating.create(setup, None, "fp")
    await service.ai_work.advance_ai(created.match.id)
    assert (await service.callers.load(created.match.id)).state.status == "finished"
    assert recorder.notes["move", "ai"] >= 36
    assert recorder.notes["move", "human"] == 0
    assert recorder.notes["finished", "score"] == 1


async def test_a_resign_and_an_abort_are_no_moves(store: FakeStore, bus: FakeBus) -> None:
    service, recorder = observed(store, bus)
    resigned, seats = await new(service)
    await first_legal(service, resigned, seats[1])
    caller = await service.callers.caller(resigned, seats[0], required=True)
    await service.play.resign(caller, None, None, "resign")
    aborted, others = await new(service)
    caller = await service.callers.caller(aborted, others[0], required=True)
    await service.play.abort(caller, None, None, "abort")
    assert recorder.notes == {
        ("created", ""): 2,
        ("move", "human"): 1,
        ("finished", "resigned"): 1,
        ("finished", "aborted"): 1,
    }


async def test_an_autoplayed_timeout_is_the_ais_move(store: FakeStore, bus: FakeBus) -> None:
    clock = Clock()
    service, recorder = observed(store, bus, ai=FirstMoveAi(), clock=clock)
    match_id, seats = await new(service, turn_seconds=5)
    clock.now += 5
    await service.moments.enforce(match_id)  # seat 1's time runs out: the AI plays for it
    await service.moments.enforce(match_id)  # nothing is due any more
    await first_legal(service, match_id, seats[0])
    assert recorder.notes == {("created", ""): 1, ("move", "ai"): 1, ("move", "human"): 1}


async def test_a_stream_is_open_from_its_first_read_to_its_end(
    store: FakeStore, bus: FakeBus
) -> None:
    service, recorder = observed(store, bus)
    created = await service.seating.create(FIXED, None, "fp")
    caller = await service.callers.caller(created.match.id, None)
    stream = service.records.stream(caller, 0, 0.1, as_is)
    assert recorder.notes["stream", "opened"] == 0  # nothing read yet
    first = await anext(stream)
    assert first is not None
    assert recorder.notes["stream", "opened"] == 1
    assert recorder.notes["stream", "closed"] == 0
    assert [event async for event in stream] == []  # nothing more before the time is up
    assert recorder.notes["stream", "closed"] == 1
    # Left early, it is closed all the same.
    early = service.records.stream(caller, 0, 5, as_is)
    await anext(early)
    await early.aclose()
    assert recorder.notes["stream", "opened"] == recorder.notes["stream", "closed"] == 2
