"""Following a match's log: a long poll answers once there is news, a stream goes on.

Waiting costs the database nothing, and a crowd costs it no more than one follower:
however many streams and long polls follow one match in this process, they share the
match's newest events (``_Tail``) and one watcher, the only one of them waiting on the
bus. When the bus says news may have come, the watcher reads what is new, once, and
wakes the followers a batch at a time, players before spectators, so that thousands of
them never hold up the event loop for long (a move being answered meanwhile waits for
one batch, not for the crowd). Each event is rendered once for each kind of viewer (a
seat, or a spectator) and the rendering shared by every follower of that kind.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Annotated, TypeVar

import msgspec
from msgspec import Meta

from scopa.contract.events import EventView, for_viewer
from scopa.domain.events import MatchFinished, StoredEvent
from scopa.service.ports import EventBus, MatchReads

MAX_EVENTS = 500
MAX_WAIT = 30.0
# Proxies drop connections that stay silent; a comment this often keeps a stream open.
HEARTBEAT_SECONDS = 15.0
# Followers woken per turn of the event loop: each then writes to its client, and what
# else the loop has to do (a move's answer) waits for at most one batch.
WAKE_BATCH = 16

T = TypeVar("T")


class EventPage(msgspec.Struct, frozen=True):
    events: Annotated[
        tuple[EventView, ...],
        Meta(
            description="The events after `after` as the caller may see them, by seq, at "
            "most 500; the next page starts after the last one's seq"
        ),
    ]
    last_seq: Annotated[int, Meta(description="The match's latest seq (0 before any event)")]


# A shared tail longer than this drops its older half: followers that far behind read
# the store themselves, as a newcomer resuming from an old seq does.
TAIL_LIMIT = 4 * MAX_EVENTS


class _Tail:
    """The newest events of one match, in seq order without gaps, shared by its followers,
    with their renderings and the followers waiting for more."""

    __slots__ = ("events", "followers", "reading", "rendered", "waiting", "watcher")

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []
        self.followers = 0
        self.reading: asyncio.Future[None] | None = None
        # (render, seat, seq) -> what render made of that seat's view of the event
        self.rendered: dict[tuple[object, int | None, int], object] = {}
        # A waiting follower's future -> its seat
        self.waiting: dict[asyncio.Future[None], int | None] = {}
        self.watcher: asyncio.Task[None] | None = None

    def after(self, seq: int) -> list[StoredEvent] | None:
        """The events past ``seq`` it holds; None if it cannot tell (``seq`` is older than
        its first event, or it holds none yet)."""
        events = self.events
        if not events or seq < events[0].seq - 1:
            return None
        return events[seq - events[0].seq + 1 :][:MAX_EVENTS]

    def extend(self, newer: list[StoredEvent]) -> None:
        if self.events and newer and newer[0].seq != self.events[-1].seq + 1:
            self.events = []  # not contiguous (cannot happen with an append-only log)
            self.rendered.clear()
        self.events.extend(newer)
        if len(self.events) > TAIL_LIMIT:
            del self.events[: len(self.events) // 2]
            self.rendered.clear()

    def end(self, after: int) -> int:
        """The seq what is new comes after: the tail's last, or, holding none, the
        follower's own."""
        return self.events[-1].seq if self.events else after

    def render(self, render: Callable[[EventView], T], seat: int | None, event: StoredEvent) -> T:
        key = (render, seat, event.seq)
        made = self.rendered.get(key)
        if made is None:
            made = self.rendered[key] = render(for_viewer(event, seat))
        return made  # type: ignore[return-value]


def _expire(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Feed:
    def __init__(
        self,
        reads: MatchReads,
        bus: EventBus,
        last_seq: Callable[[str], Awaitable[int]],
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.reads = reads
        self.bus = bus
        self.last_seq = last_seq
        self.monotonic = monotonic
        self._tails: dict[str, _Tail] = {}
        self._closing = False

    def close(self) -> None:
        """End every stream now (at shutdown: their clients reconnect elsewhere with
        Last-Event-ID), and every stream opened from now on at once."""
        self._closing = True
        for tail in self._tails.values():
            for future in tail.waiting:
                _expire(future)
        self.bus.wake_all()

    def following(self, match_id: str) -> int:
        """How many streams and long polls of this process follow the match now."""
        tail = self._tails.get(match_id)
        return 0 if tail is None else tail.followers

    def _follow(self, match_id: str) -> _Tail:
        tail = self._tails.get(match_id)
        if tail is None:
            tail = self._tails[match_id] = _Tail()
        tail.followers += 1
        return tail

    def _leave(self, match_id: str, tail: _Tail) -> None:
        tail.followers -= 1
        if not tail.followers:
            if tail.watcher is not None:
                tail.watcher.cancel()
                tail.watcher = None
            if self._tails.get(match_id) is tail:
                del self._tails[match_id]

    async def _read_new(self, match_id: str, tail: _Tail, since: int) -> None:
        """Into the tail, what is new after ``since``: one read, which whoever asks
        while it is under way waits for instead of reading too."""
        if tail.reading is not None:
            await asyncio.shield(tail.reading)
            return
        reading = tail.reading = asyncio.get_running_loop().create_future()
        try:
            newer = await self.reads.events(match_id, since, MAX_EVENTS)
        except BaseException as error:
            reading.set_exception(error)
            reading.exception()  # retrieved: only the waiters need to hear of it
            raise
        finally:
            tail.reading = None
        tail.extend(newer)
        reading.set_result(None)

    async def _events(self, match_id: str, tail: _Tail, after: int) -> list[StoredEvent]:
        """Events past ``after`` (at most MAX_EVENTS): from the shared tail when it has
        them, else from one shared read of what is new; none when the tail is up to date
        and the watcher is on the lookout for more."""
        while True:
            held = tail.after(after)
            if held:
                return held
            if held is None and tail.events and after < tail.events[0].seq:
                # Further back than the tail reaches: this follower reads for itself.
                return await self.reads.events(match_id, after, MAX_EVENTS)
            if held is not None and tail.watcher is not None:
                return []
            reading = tail.reading
            await self._read_new(match_id, tail, tail.end(after))
            if reading is None:  # this follower's own read: what it found is all there is
                return tail.after(after) or []

    async def _news(
        self, match_id: str, tail: _Tail, after: int, seat: int | None, seconds: float
    ) -> None:
        """Until the watcher has read news for the match, or ``seconds`` pass, or the feed
        closes; raises what the watcher's read raised."""
        if self._closing:
            return
        if tail.watcher is None:
            # The tail is up to date (the follower has just looked): news is what follows.
            tail.watcher = asyncio.create_task(self._watch(match_id, tail, tail.end(after)))
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        tail.waiting[future] = seat
        timer = loop.call_later(max(seconds, 0.0), _expire, future)
        try:
            await future
        finally:
            timer.cancel()
            tail.waiting.pop(future, None)

    async def _watch(self, match_id: str, tail: _Tail, since: int) -> None:
        """While the match has followers here: wait on the bus, read what is new, wake
        the followers. A failed read reaches the followers waiting, and ends the watch
        (the next follower to wait starts another)."""
        try:
            while not self._closing:
                await self.bus.wait(match_id, since, HEARTBEAT_SECONDS)
                if self._closing:
                    break
                await self._read_new(match_id, tail, since)
                if tail.events and tail.events[-1].seq > since:
                    since = tail.events[-1].seq
                    await self._wake(tail, None)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            tail.watcher = None
            await self._wake(tail, error)
            return
        tail.watcher = None
        await self._wake(tail, None)

    async def _wake(self, tail: _Tail, error: Exception | None) -> None:
        # Players first: they have a move to make; spectators only watch.
        waiting = sorted(tail.waiting.items(), key=lambda item: item[1] is None)
        for i, (future, _) in enumerate(waiting, 1):
            if not future.done():
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)
            if i % WAKE_BATCH == 0:
                await asyncio.sleep(0)

    async def page(self, match_id: str, seat: int | None, after: int, wait: float) -> EventPage:
        """Events past ``after``, holding up to ``wait`` seconds until there is one."""
        deadline = self.monotonic() + min(wait, MAX_WAIT)
        tail = self._follow(match_id)
        try:
            while True:
                stored = await self._events(match_id, tail, after)
                remaining = deadline - self.monotonic()
                if stored or remaining <= 0 or self._closing:
                    break
                await self._news(match_id, tail, after, seat, remaining)
        finally:
            self._leave(match_id, tail)
        if 0 < len(stored) < MAX_EVENTS:
            last_seq = stored[-1].seq  # a read that was not cut short ends at the latest
        else:
            # Read after the events, so last_seq is never behind what the page holds.
            last_seq = await self.last_seq(match_id)
        return EventPage(tuple(for_viewer(e, seat) for e in stored), last_seq)

    async def stream(
        self,
        match_id: str,
        seat: int | None,
        after: int,
        seconds: float,
        finished: bool,
        render: Callable[[EventView], T],
    ) -> AsyncGenerator[Sequence[T] | None, None]:
        """Events past ``after`` as they happen, for ``seconds`` or until the match ends,
        each as ``render`` makes it of the seat's view, a batch of the events read at once
        at a time.

        ``None`` marks a quiet spell, so the transport can show the line is alive.
        """
        now = self.monotonic
        deadline = now() + seconds
        quiet_since = now()
        tail = self._follow(match_id)
        try:
            while True:
                stored = await self._events(match_id, tail, after)
                if stored:
                    batch = []
                    for event in stored:
                        batch.append(tail.render(render, seat, event))
                        after = event.seq
                        if isinstance(event, MatchFinished):
                            yield batch
                            return
                    yield batch
                    quiet_since = now()
                    continue
                moment = now()
                if finished or moment >= deadline or self._closing:
                    return
                if moment - quiet_since >= HEARTBEAT_SECONDS:
                    quiet_since = moment
                    yield None
                wake_by = min(deadline, quiet_since + HEARTBEAT_SECONDS)
                await self._news(match_id, tail, after, seat, wake_by - moment)
        finally:
            self._leave(match_id, tail)
