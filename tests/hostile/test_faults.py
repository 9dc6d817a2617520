"""Database faults during play: the real server process on a Postgres server of the test's
own (``PrivatePostgres``: stopping it disturbs nothing else), while clients play matches
one after another: every backend of the server killed with ``pg_terminate_backend``,
several times, then the database stopped (fast, then immediate) and started again, then
frozen (SIGSTOP: connections stay open, nothing answers) for longer than any of the
server's database timeouts.

Meanwhile every request answers within 10 s; while the database is away the answer is 503
problem+json with ``Retry-After``, never a 500, and a spectator's event stream that breaks
off resumes with ``Last-Event-ID`` without a gap or a repeat. Afterwards every match plays on to the
end, the store is consistent (replay gives the stored state, seqs have no gaps) and every
move the server acknowledged is in the log.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scopa.domain.match import Seat
from scopa.service.idempotency import Claim, caller_scope
from scopa.service.ports import Idempotency
from scopa.service.seating import Setup
from scopa.service.services import build_services
from tests.fakes import FakeBus, FakeKeys, FakeStore, FakeUnitOfWork, StoreDown, fake_service
from tests.support.audit import audit
from tests.support.driver import Journal, Player, client
from tests.support.eventually import eventually
from tests.support.private_postgres import PrivatePostgres, running_private_postgres
from tests.support.reliability import ReliabilityRecord
from tests.support.server_process import Server, start_server

# A hang fails the test, with every thread's stack, instead of holding up the run.
pytestmark = pytest.mark.timeout(300)

DATABASE = "scopa"
SLOTS = 6
# Liveness only: a match of target 1 takes seconds; the bound allows for a loaded machine.
FINISH_SECONDS = 150.0
TERMINATIONS = 3
DOWN_SECONDS = 3.0
# Past the server's connect (3 s) and statement (5 s) timeouts together, and past the
# 10 s a request may take, so a request sent at the start meets nothing but the freeze.
FROZEN_SECONDS = 12.0
# Between two faults the clients play on until this many more moves are acknowledged, so
# each fault meets play under way (after an outage: play that has resumed), however fast
# the machine; the bound is liveness only.
MOVES_BETWEEN = 15
PLAY_ON_SECONDS = 60.0


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    yield from running_private_postgres()


def setup(slot: int, number: int) -> dict[str, Any]:
    """Two humans, a human against the AI, or four humans; target 1 keeps matches short."""
    kinds: list[dict[str, str]] = [{"kind": "human"}, {"kind": "human"}]
    if slot % 3 == 1:
        kinds = [{"kind": "human"}, {"kind": "ai", "level": "easy"}]
    elif slot == 5:
        kinds = [{"kind": "human"}] * 4
    return {"seats": kinds, "rules": {"target": 1}, "seed": 1000 * slot + number}


class Faults:
    def __init__(self, pg: PrivatePostgres, player: Player) -> None:
        self.pg = pg
        self.player = player
        self.injected = 0
        self.kills: list[int] = []  # backends terminated, per round
        self.ready_while_down: list[int] = []
        self.ready_while_frozen: list[int] = []
        self.done = asyncio.Event()

    async def terminate(self) -> None:
        killed = await self.pg.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            f"WHERE datname = '{DATABASE}' AND pid <> pg_backend_pid()",
        )
        self.injected += 1
        self.kills.append(int(killed))

    async def outage(self, mode: str) -> None:
        await asyncio.to_thread(self.pg.stop, mode)
        self.injected += 1
        started = time.monotonic()
        while time.monotonic() - started < DOWN_SECONDS:
            answer = await self.player.send("GET", "/ready")
            self.ready_while_down.append(0 if answer is None else answer.status_code)
            await asyncio.sleep(0.5)
        await asyncio.to_thread(self.pg.start)

    async def freeze(self) -> None:
        frozen = await asyncio.to_thread(self.pg.freeze)
        self.injected += 1
        started = time.monotonic()
        try:
            answer = await self.player.send("GET", "/ready")
            self.ready_while_frozen.append(0 if answer is None else answer.status_code)
            await asyncio.sleep(FROZEN_SECONDS - (time.monotonic() - started))
        finally:
            self.pg.thaw(frozen)

    async def play_on(self) -> None:
        acks = self.player.journal.acks
        seen = len(acks)
        await eventually(
            lambda: len(acks) >= seen + MOVES_BETWEEN, seconds=PLAY_ON_SECONDS, every=0.05
        )

    async def run(self) -> None:
        try:
            await self.play_on()
            for _ in range(TERMINATIONS):
                await self.terminate()
                await self.play_on()
            for mode in ("fast", "immediate"):
                await self.outage(mode)
                await self.play_on()  # play resumes, then the connections go again
                await self.terminate()
                await self.play_on()
            await self.freeze()
            await self.play_on()
        finally:
            self.done.set()


@pytest.mark.postgres
@pytest.mark.slow
async def test_connections_killed_and_database_restarted_during_play(
    private_postgres: PrivatePostgres, tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "faults: Postgres connections killed, stopped, frozen"
    pg = private_postgres
    url = await pg.create_database(DATABASE)
    server: Server = await asyncio.to_thread(start_server, url, tmp_path)
    journal = Journal()
    matches: list[str] = []
    finals: list[dict[str, Any]] = []
    # What a spectator's event stream delivered of each match, reconnecting as it broke.
    streams: dict[str, list[dict[str, Any]]] = {}
    try:
        async with client(server.base_url, connections=4 * SLOTS) as http:
            player = Player(http, journal)
            faults = Faults(pg, player)

            async def slot(number: int) -> None:
                # New matches while faults are injected, so every fault meets live play.
                for round_ in range(100):
                    if faults.done.is_set():
                        return
                    created = await player.create(setup(number, round_))
                    if created is None:
                        return
                    matches.append(created[0])
                    deadline = time.monotonic() + FINISH_SECONDS
                    final, streams[created[0]] = await asyncio.gather(
                        player.play_match(*created, deadline), player.follow(created[0], deadline)
                    )
                    if final is not None:
                        finals.append(final)

            await asyncio.gather(faults.run(), *(slot(i) for i in range(SLOTS)))
            streams_cut = [m for m in matches if streams[m] != await player.log_of(m)]
        checked = await audit(url, matches, journal.acks)
        alive = server.process.poll() is None
    finally:
        code = await asyncio.to_thread(server.stop)

    reliability_log.cases = len(matches)
    reliability_log.requests = journal.requests
    reliability_log.faults = faults.injected
    reliability_log.moves_lost = checked.moves_lost
    reliability_log.failures = len(journal.breaches) + len(checked.problems) + len(streams_cut)
    reliability_log.notes = (
        f"{journal.statuses[503]} answers 503 during outages, {sum(faults.kills)} backends "
        f"terminated, {len(journal.acks)} moves acknowledged, {len(matches)} matches finished, "
        f"{journal.streams_resumed} event streams resumed after breaking off"
    )
    assert journal.breaches == []
    assert checked.problems == []
    assert checked.moves_lost == 0
    assert streams_cut == []  # each stream, resumed after each break, held the whole log
    assert journal.streams_resumed > 0
    assert alive, server.log_text()[-4000:]
    assert code in (0, -15), server.log_text()[-4000:]
    assert len(finals) == len(matches) == checked.finished
    assert all(faults.kills), faults.kills  # every round found backends of the server's
    assert journal.statuses[503] > 0  # the outages were seen, and answered as outages
    assert set(faults.ready_while_down) == {503}, faults.ready_while_down
    assert set(faults.ready_while_frozen) == {503}, faults.ready_while_frozen
    assert len(journal.acks) > 100


class FailsToCreate(FakeStore):
    def commit(self, work: FakeUnitOfWork) -> None:
        raise StoreDown("the database does not answer")


class ReleaseHangs(FakeKeys):
    """A database that fails a change, then hangs when the key is to be let go."""

    async def release_idempotent(self, request: Idempotency) -> None:
        await asyncio.sleep(3600)


class PublishHangs(FakeBus):
    """Changes are stored, but announcing them hangs (a NOTIFY on a frozen database)."""

    async def publish(self, match_id: str, seq: int) -> None:
        await asyncio.sleep(3600)


async def test_a_failed_request_does_not_wait_to_release_its_key() -> None:
    store = FailsToCreate()
    service = build_services(
        store,
        FakeBus(),
        reads=store.reads,
        keys=ReleaseHangs(store),
        turns=store.reads,
        kept=store.reads,
        players=store.players,
        standings=store.standings,
        challenges=store.challenges,
    )
    setup = Setup(seats=(Seat("human"), Seat("human")))
    started = time.monotonic()
    with pytest.raises(StoreDown):
        # Liveness bound: the release may take 1 s, not the hour the store would.
        async with asyncio.timeout(5):
            await service.seating.create(setup, "key", "fingerprint")
    assert time.monotonic() - started < 3


async def test_a_stored_change_does_not_wait_to_be_announced() -> None:
    store = FakeStore()
    service = fake_service(store, PublishHangs())
    created = await service.seating.create(Setup(seats=(Seat("human"), Seat("open"))), None, "")
    started = time.monotonic()
    async with asyncio.timeout(5):
        joined = await service.seating.join(created.match.id, 1, None, "")
    assert time.monotonic() - started < 3
    assert joined.seat == 1
    assert store.records[created.match.id].state.status == "active"


class DownAfterClaim(FakeStore):
    """The database goes away after a create claimed its key, before the create is stored."""

    first = True

    def commit(self, work: FakeUnitOfWork) -> None:
        if self.first:
            self.first = False
            self.down = True
        super().commit(work)


async def test_a_key_left_claimed_by_an_outage_is_let_go_once_the_database_is_back() -> None:
    store = DownAfterClaim()
    service = fake_service(store)
    setup = Setup(seats=(Seat("human"), Seat("human")))
    scope = caller_scope("create")
    held = (scope, Claim(scope, "key", "").stored.key)
    with pytest.raises(StoreDown):
        await service.seating.create(setup, "key", "fingerprint")
    assert held in store.keys.claims  # the release failed too
    store.down = False
    # Liveness bound: the key is retried every second.
    await eventually(lambda: held not in store.keys.claims, seconds=5)
    created = await service.seating.create(setup, "key", "fingerprint")
    assert store.records[created.match.id].state.status == "active"
