"""The AI pool (infra.ai_pool): decisions let in most urgent first, a caller that leaves
costs no decision, a pool that lost a process is replaced while ``missing`` says so, and
a seeded match's decisions are a fixed search that no clock cuts short."""

from __future__ import annotations

import asyncio
import os
import time

import msgspec
import pytest

from scopa.domain.ai import decide
from scopa.domain.match import MatchState, Seat, SeatKind, legal_moves, new_match, play
from scopa.domain.rules import make_rules
from scopa.infra.ai_pool import (
    AI_ONLY,
    FOR_A_HUMAN_SEAT,
    HUMAN_WAITS,
    SEEDED_SAMPLES,
    PooledAi,
    PriorityGate,
    urgency,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def match(*kinds: SeatKind) -> MatchState:
    seats = [Seat(k, "easy" if k == "ai" else None) for k in kinds]
    # Dealer 0: seat 1 leads.
    return new_match(make_rules(players=len(kinds)), seats, seed=2, first_dealer=0)[0]


def test_urgency_puts_a_waiting_human_first() -> None:
    assert urgency(match("human", "ai"), 1) == HUMAN_WAITS
    assert urgency(match("human", "ai"), 0) == FOR_A_HUMAN_SEAT  # a hint, an autoplay
    assert urgency(match("ai", "ai"), 0) == AI_ONLY
    assert HUMAN_WAITS < FOR_A_HUMAN_SEAT < AI_ONLY


async def test_the_gate_lets_waiters_in_by_urgency_then_arrival() -> None:
    gate = PriorityGate(1)
    order: list[str] = []
    held = asyncio.Event()

    async def holder() -> None:
        async with gate.slot(AI_ONLY):
            held.set()
            await asyncio.sleep(0.05)

    async def waiter(name: str, urgency: int) -> None:
        async with gate.slot(urgency):
            order.append(name)

    first = asyncio.create_task(holder())
    await held.wait()
    waiters = [
        asyncio.create_task(waiter(name, level))
        for name, level in (("bots", AI_ONLY), ("hint", FOR_A_HUMAN_SEAT), ("human", HUMAN_WAITS))
    ]
    await asyncio.sleep(0)
    await asyncio.gather(first, *waiters)
    assert order == ["human", "hint", "bots"]


async def test_a_waiter_that_leaves_is_never_let_in() -> None:
    gate = PriorityGate(1)
    ran: list[str] = []
    release = asyncio.Event()

    async def use(name: str) -> None:
        async with gate.slot(HUMAN_WAITS):
            ran.append(name)
            await release.wait()

    busy = asyncio.create_task(use("busy"))
    await asyncio.sleep(0)
    gone = asyncio.create_task(use("gone"))
    after = asyncio.create_task(use("after"))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(busy, after)
    assert ran == ["busy", "after"]
    assert await asyncio.gather(gone, return_exceptions=True)
    assert gate.waiting == 0


class Seen:
    def __init__(self) -> None:
        self.missing: list[bool] = []
        self.decisions: list[str] = []

    def decided(self, level: str, seconds: float, overran: bool) -> None:
        self.decisions.append(level)

    def pool_missing(self, missing: bool) -> None:
        self.missing.append(missing)


async def test_a_pool_that_lost_a_process_is_replaced_and_decides_again() -> None:
    seen = Seen()
    ai = PooledAi(1, budget_ms=20, observer=seen)
    state = match("human", "ai")
    try:
        await ai.warm_up()
        broken = ai.executor
        broken.submit(os._exit, 1)  # its process dies, as under SIGKILL

        deadline = time.monotonic() + 30
        while not ai.missing and ai.executor is broken:
            assert time.monotonic() < deadline, "the broken pool went unnoticed"
            await asyncio.sleep(0.01)
        # A decision asked for meanwhile waits for the new pool rather than failing.
        move, _ = await ai.decide(state, 1, "easy", 7)

        assert move in legal_moves(state)
        assert ai.executor is not broken
        assert not ai.missing
        assert ai.capacity == 1
        assert seen.missing == [True, False]
        assert seen.decisions == ["easy"]
    finally:
        await ai.close()


async def test_a_seeded_match_is_searched_a_fixed_amount_and_an_unseeded_one_on_the_clock() -> None:
    seats = (Seat("human"), Seat("ai", "expert"))
    state, _ = new_match(make_rules(), seats, seed=7, first_dealer=1)
    state, _ = play(state, 0, legal_moves(state)[2])  # QH takes QS: the expert has 3 moves
    unseeded = msgspec.structs.replace(state, seeded=False)
    fixed = decide(state, 1, "expert", 99, samples=SEEDED_SAMPLES["scopa"])
    assert fixed[1].endswith(f"over {SEEDED_SAMPLES['scopa']} sampled deals")
    for budget_ms in (1, 1000):
        ai = PooledAi(0, budget_ms=budget_ms)
        try:
            assert await ai.decide(state, 1, "expert", 99) == fixed
            if budget_ms == 1:
                hurried = await ai.decide(unseeded, 1, "expert", 99)
        finally:
            await ai.close()
    assert hurried[1].endswith("over 3 sampled deals")  # the clock stopped it at the least


async def test_a_seeded_scopone_match_is_searched_its_own_fixed_amount() -> None:
    """Ten-card hands make a Scopone world dear: a seeded one gets fewer sampled deals."""
    seats = (Seat("ai", "expert"), Seat("human"), Seat("human"), Seat("human"))
    state, _ = new_match(make_rules(players=4, deal="scopone"), seats, seed=7, first_dealer=3)
    assert SEEDED_SAMPLES["scopone"] < SEEDED_SAMPLES["scopa"]
    fixed = decide(state, 0, "expert", 99, samples=SEEDED_SAMPLES["scopone"])
    assert fixed[1].endswith(f"over {SEEDED_SAMPLES['scopone']} sampled deals")
    ai = PooledAi(0, budget_ms=1000)
    try:
        assert await ai.decide(state, 0, "expert", 99) == fixed
    finally:
        await ai.close()
