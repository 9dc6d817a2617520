"""Hints in a process that runs no AI: asked of the workers, answered with their move, and
forgotten however the asking ends, so that a hint whose client went away is not decided."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from scopa.domain.cards import parse_card
from scopa.domain.errors import InvalidSetup
from scopa.domain.match import MatchState, Seat
from scopa.domain.moves import Move
from scopa.service.callers import Caller
from scopa.service.errors import AiUnavailable, UnknownLevel
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.api.support import DECK
from tests.fakes import FakeStore, fake_service

FIXED = Setup(
    seats=(Seat("human"), Seat("human")),
    decks=(tuple(parse_card(c) for c in DECK),),
    first_dealer=0,
    seed=7,
)


@dataclass
class FakeHints:
    """The hint queue; a worker answers each request with ``answer`` (unless None)."""

    answer: tuple[Move, str] | None = None
    asked: dict[str, tuple[str, MatchState, int, str]] = field(default_factory=dict)
    answers: dict[str, tuple[Move, str]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    heard: asyncio.Event = field(default_factory=asyncio.Event)

    async def ask_hint(self, match_id: str, state: MatchState, seat: int, level: str) -> str:
        job = f"job-{len(self.asked)}"
        self.asked[job] = (match_id, state, seat, level)
        if self.answer is not None:
            self.answers[job] = self.answer
        self.heard.set()
        return job

    async def hint_answer(self, job: str) -> tuple[Move, str] | None:
        return self.answers.get(job)

    async def hint_held(self, job: str) -> bool:
        return False

    async def drop_hint(self, job: str) -> None:
        self.dropped.append(job)

    async def hint_job(self, job: str) -> tuple[MatchState, int, str] | None:
        raise AssertionError("only a worker reads the request")

    async def answer_hint(self, job: str, move: Move, reason: str) -> None:
        raise AssertionError("only a worker answers")


class Ticking:
    """A monotonic clock a second on at each reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def on_turn(service: Services) -> Caller:
    created = await service.seating.create(FIXED, None, "fp")
    state = (await service.callers.caller(created.match.id, created.tokens[0].token)).record.state
    token = {t.seat: t.token for t in created.tokens}[state.turn or 0]
    return await service.callers.caller(created.match.id, token)


async def test_the_worker_s_move_is_the_hint_and_its_request_is_forgotten() -> None:
    move = Move.of(parse_card("5S"))
    queue = FakeHints(answer=(move, "lays it"))
    service = fake_service(hint_queue=queue)
    caller = await on_turn(service)
    hint = await service.ai_work.hint(caller, "expert")
    assert (hint.card, hint.capture, hint.reason, hint.level) == ("5S", (), "lays it", "expert")
    ((match_id, state, seat, level),) = queue.asked.values()
    assert (match_id, state, seat, level) == (
        caller.match_id,
        caller.record.state,
        caller.seat,
        "expert",
    )
    assert queue.dropped == list(queue.asked)
    with pytest.raises(UnknownLevel):
        await service.ai_work.hint(caller, "grandmaster")


async def test_a_hint_whose_client_went_away_is_forgotten_at_once() -> None:
    queue = FakeHints()  # no worker answers
    service = fake_service(hint_queue=queue)
    caller = await on_turn(service)
    asking = asyncio.ensure_future(service.ai_work.hint(caller, "hard"))
    await queue.heard.wait()
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    assert queue.dropped == list(queue.asked)


async def test_no_worker_ends_the_hint_and_forgets_it() -> None:
    queue = FakeHints()
    service = fake_service(FakeStore(ai_capacity=0), hint_queue=queue, monotonic=Ticking())
    caller = await on_turn(service)
    with pytest.raises(AiUnavailable):
        await service.ai_work.hint(caller, "hard")
    assert queue.dropped == list(queue.asked)


async def test_ai_seats_are_taken_where_only_the_workers_play_them() -> None:
    """An API process without AI of its own still seats AI players: the workers play them."""
    service = fake_service(hint_queue=FakeHints())
    setup = Setup(seats=(Seat("human"), Seat("ai", "expert")))
    created = await service.seating.create(setup, None, "fp")
    assert created.match.seats[1].kind == "ai"
    with pytest.raises(InvalidSetup, match="no AI players"):
        await fake_service().seating.create(setup, None, "fp")  # no AI anywhere
