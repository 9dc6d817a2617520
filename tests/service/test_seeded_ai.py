"""A seeded match (given a seed or decks) gets the same AI moves on every run: its AI
secret is derived from the setup, and the real AI pool searches it without a clock.

Each run is a fresh set of services on fresh fakes with its own pool, the two runs under
time budgets a thousand times apart; the human seat plays the hint of the same level, and
lets every third turn's clock run out so that autoplay decides it. Unseeded matches keep
a secret drawn at random."""

from __future__ import annotations

from typing import Any

import pytest

from scopa.domain.cards import parse_card
from scopa.domain.events import CardPlayed, DealStarted
from scopa.domain.match import Seat
from scopa.infra.ai_pool import PooledAi
from scopa.service.seating import Setup
from tests.api.support import DECK
from tests.fakes import FakeBus, FakeStore, fake_service

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

TURN_SECONDS = 30


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


Played = tuple[int, int, str, tuple[str, ...], bool]  # deal, seat, card, capture, auto


async def played(setup: Setup, budget_ms: float, turns: int = 40) -> list[Played]:
    """The cards played in ``setup``'s match, by a fresh pool with ``budget_ms``, the human
    seat playing the hint of the AI seat's level, and timing out on every third turn."""
    store, clock = FakeStore(), Clock()
    ai = PooledAi(0, budget_ms=budget_ms)
    try:
        service = fake_service(store, FakeBus(), ai=ai, clock=clock)
        created = await service.seating.create(setup, None, "fp")
        match_id, token = created.match.id, created.tokens[0].token
        level = next(s.level for s in setup.seats if s.level is not None)
        for turn in range(turns):
            await service.ai_work.advance_ai(match_id)
            if store.records[match_id].state.status != "active":
                break
            if turn % 3 == 2:
                clock.now += TURN_SECONDS
                await service.moments.enforce(match_id)
                continue
            caller = await service.callers.caller(match_id, token, required=True)
            hint = await service.ai_work.hint(caller, level)
            capture = [parse_card(c) for c in hint.capture]
            await service.play.play(caller, parse_card(hint.card), capture, None, None, "fp")
        deal, moves = 0, []
        for event in store.log[match_id]:
            if isinstance(event, DealStarted):
                deal = event.deal
            if isinstance(event, CardPlayed):
                moves.append((deal, event.seat, event.card, event.capture, event.auto))
        return moves
    finally:
        await ai.close()


def setup(level: str, **given: Any) -> Setup:
    seats = (Seat("human"), Seat("ai", level))
    return Setup(seats=seats, rules={"turn_seconds": TURN_SECONDS}, first_dealer=1, **given)


@pytest.mark.parametrize("level", ["hard", "expert"])
async def test_a_seeded_match_gets_the_same_ai_moves_on_every_run(level: str) -> None:
    first = await played(setup(level, seed=7), budget_ms=1)
    again = await played(setup(level, seed=7), budget_ms=1000)
    assert len(first) >= 30
    assert any(auto for *_, auto in first)  # autoplay was among the decisions compared
    assert first == again


async def test_a_match_seeded_by_its_decks_gets_the_same_ai_moves_in_them() -> None:
    """Only the given deck is fixed: a later deal's shuffle is drawn at random."""
    decks = (tuple(parse_card(c) for c in DECK),)
    first = await played(setup("expert", decks=decks), budget_ms=1)
    again = await played(setup("expert", decks=decks), budget_ms=1000)
    in_the_deck = [m for m in first if m[0] == 1]
    assert len(in_the_deck) >= 20
    assert in_the_deck == [m for m in again if m[0] == 1]


async def test_unseeded_matches_keep_a_secret_drawn_at_random() -> None:
    store = FakeStore()
    service = fake_service(store, FakeBus())
    seats = (Seat("human"), Seat("human"))
    secrets = set()
    seeds: tuple[dict[str, Any], ...] = ({}, {}, {"seed": 7}, {"seed": 7}, {"seed": 8})
    for given in seeds:
        created = await service.seating.create(Setup(seats=seats, **given), None, "fp")
        secrets.add(store.records[created.match.id].state.ai_secret)
    assert len(secrets) == 4  # two drawn, one for seed 7 twice, one for seed 8
