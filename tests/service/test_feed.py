"""Every follower of a match in one process shares one read of each change."""

from __future__ import annotations

import asyncio
from collections import Counter

from scopa.contract.events import EventView
from scopa.domain.cards import parse_card
from scopa.domain.events import StoredEvent
from scopa.domain.match import Seat, legal_moves
from scopa.service.callers import Caller
from scopa.service.seating import Setup
from scopa.service.services import Services
from tests.api.support import DECK
from tests.fakes import FakeBus, FakeReads, FakeStore, fake_service, followed
from tests.support.eventually import eventually

FIXED = Setup(
    seats=(Seat("human"), Seat("human")),
    decks=(tuple(parse_card(c) for c in DECK),),
    first_dealer=0,
    seed=7,
)


class CountingReads(FakeReads):
    event_reads = 0
    in_flight = 0

    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        self.event_reads += 1
        self.in_flight += 1
        try:
            await asyncio.sleep(0.01)  # a read takes time, so followers do overlap
            return await super().events(match_id, after, limit)
        finally:
            self.in_flight -= 1


async def play_first_legal(service: Services, match_id: str, token: str) -> None:
    caller = await service.callers.caller(match_id, token, required=True)
    move = legal_moves(caller.record.state)[0]
    await service.play.play(caller, move.card, move.capture, None, None, "")


async def test_a_hundred_streams_share_one_read_per_change() -> None:
    store = FakeStore()
    reads = store.reads = CountingReads(store)
    service = fake_service(store, FakeBus())
    created = await service.seating.create(FIXED, None, "fp")
    match_id = created.match.id
    token = {t.seat: t.token for t in created.tokens}
    spectator = await service.callers.caller(match_id, None)
    seen: list[list[int]] = [[] for _ in range(100)]

    async def follow(i: int) -> None:
        async for event in followed(service, spectator, 0, 5.0):
            if event is not None:
                seen[i].append(event.seq)
            if len(seen[i]) == 3:
                return

    followers = [asyncio.create_task(follow(i)) for i in range(100)]
    bus = service.records.feed.bus
    assert isinstance(bus, FakeBus)
    # Counted from the moment the crowd is in: every follower has the first event, no
    # read is under way, and the one watcher waits on the bus for news.
    await eventually(
        lambda: all(s == [1] for s in seen) and not reads.in_flight and bus.waiting == 1
    )
    reads.event_reads = 0
    await play_first_legal(service, match_id, token[1])
    await play_first_legal(service, match_id, token[0])
    await asyncio.wait_for(asyncio.gather(*followers), 5)
    assert all(s == [1, 2, 3] for s in seen)
    # Two changes: at most one read each, plus one that found a change already read.
    assert reads.event_reads <= 4
    assert service.records.feed.following(match_id) == 0


async def test_a_follower_far_behind_reads_for_itself_and_misses_nothing() -> None:
    store = FakeStore()
    service = fake_service(store, FakeBus())
    created = await service.seating.create(FIXED, None, "fp")
    match_id = created.match.id
    token = {t.seat: t.token for t in created.tokens}
    for seat in (1, 0, 1):
        await play_first_legal(service, match_id, token[seat])
    spectator = await service.callers.caller(match_id, None)
    page = await service.records.events(spectator, 2, 0)
    assert [e.seq for e in page.events] == [3, 4]
    assert page.last_seq == 4
    earlier = await service.records.events(spectator, 0, 0)
    assert [e.seq for e in earlier.events] == [1, 2, 3, 4]


async def test_a_failed_shared_read_reaches_every_follower_and_the_next_read_retries() -> None:
    store = FakeStore()
    service = fake_service(store, FakeBus())
    created = await service.seating.create(FIXED, None, "fp")
    spectator = await service.callers.caller(created.match.id, None)
    store.down = True
    pages = [service.records.events(spectator, 0, 0) for _ in range(5)]
    results = await asyncio.gather(*pages, return_exceptions=True)
    assert all(isinstance(r, Exception) for r in results)
    store.down = False
    page = await service.records.events(spectator, 0, 0)
    assert [e.seq for e in page.events] == [1]


async def test_closing_ends_streams_and_long_polls_at_once() -> None:
    service = fake_service(FakeStore(), FakeBus())
    created = await service.seating.create(FIXED, None, "fp")
    spectator = await service.callers.caller(created.match.id, None)

    async def follow() -> list[int]:
        return [e.seq async for e in followed(service, spectator, 0, 60.0) if e is not None]

    stream = asyncio.create_task(follow())
    poll = asyncio.create_task(service.records.events(spectator, 1, 30))
    feed = service.records.feed
    assert isinstance(feed.bus, FakeBus)
    bus = feed.bus
    await eventually(lambda: feed.following(created.match.id) == 2 and bus.waiting == 1)
    service.records.close_streams()
    # Liveness bound: without the close, both would hold for 30 s and more.
    assert await asyncio.wait_for(stream, 2) == [1]
    assert (await asyncio.wait_for(poll, 2)).events == ()
    assert await asyncio.wait_for(follow(), 2) == [1]  # one opened later ends at once


async def test_each_event_is_rendered_once_for_each_kind_of_viewer_and_players_hear_first() -> None:
    service = fake_service(FakeStore(), FakeBus())
    created = await service.seating.create(FIXED, None, "fp")
    match_id = created.match.id
    token = {t.seat: t.token for t in created.tokens}
    spectator = await service.callers.caller(match_id, None)
    player = await service.callers.caller(match_id, token[0])
    renders: Counter[int] = Counter()
    heard: list[str] = []  # who got seq 2, in the order they got it
    first: list[str] = []  # who has had seq 1

    def render(view: EventView) -> int:
        renders[view.seq] += 1
        return view.seq

    async def follow(caller: Caller, who: str) -> list[int]:
        seqs: list[int] = []
        async for batch in service.records.stream(caller, 0, 5.0, render):
            seqs += batch or []
            if 1 in (batch or []):
                first.append(who)
            if 2 in (batch or []):
                heard.append(who)
            if len(seqs) >= 3:
                break
        return seqs

    # The spectators come first, so only the waking order can put the players first.
    followers = [asyncio.create_task(follow(spectator, "spectator")) for _ in range(50)]
    followers += [asyncio.create_task(follow(player, "player")) for _ in range(3)]
    # Reads here never pause: a follower that has had the first event is waiting.
    await eventually(lambda: len(first) == 53)
    await play_first_legal(service, match_id, token[1])
    await play_first_legal(service, match_id, token[0])
    seen = await asyncio.wait_for(asyncio.gather(*followers), 5)
    assert all(s == [1, 2, 3] for s in seen)
    # Two kinds of viewer, 53 followers: each event rendered twice.
    assert renders == {1: 2, 2: 2, 3: 2}
    assert heard[:3] == ["player"] * 3
