"""Following a match's log: a long poll answers once there is news, a stream goes on.

Waiting costs the database nothing: the bus wakes a waiter when news may have come, and
only then is the log read. However many streams and long polls follow one match in this
process, a change costs one read: they share the match's newest events (``_Tail``), and
while one read of what is new is under way the others wait for it instead of reading too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Annotated

import msgspec
from msgspec import Meta

from domain.events import EventView, MatchFinished, StoredEvent, for_viewer
from service.ports import EventBus, MatchReads

MAX_EVENTS = 500
MAX_WAIT = 30.0
# Proxies drop connections that stay silent; a comment this often keeps a stream open.
HEARTBEAT_SECONDS = 15.0


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
    """The newest events of one match, in seq order without gaps, shared by its followers."""

    __slots__ = ("events", "followers", "reading")

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []
        self.followers = 0
        self.reading: asyncio.Future[None] | None = None

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
        self.events.extend(newer)
        if len(self.events) > TAIL_LIMIT:
            del self.events[: len(self.events) // 2]


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
        if not tail.followers and self._tails.get(match_id) is tail:
            del self._tails[match_id]

    async def _events(self, match_id: str, tail: _Tail, after: int) -> list[StoredEvent]:
        """Events past ``after`` (at most MAX_EVENTS), from the shared tail when it has
        them, else from one read of what is new that every follower waiting shares."""
        while True:
            held = tail.after(after)
            if held:
                return held
            if held is None and tail.events and after < tail.events[0].seq:
                # Further back than the tail reaches: this follower reads for itself.
                return await self.reads.events(match_id, after, MAX_EVENTS)
            if tail.reading is not None:
                # Someone is reading what is new: that read answers this follower too.
                await asyncio.shield(tail.reading)
                held = tail.after(after)
                if held is not None:
                    return held
                continue
            since = tail.events[-1].seq if tail.events else after
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
            return tail.after(after) or []

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
                await self.bus.wait(match_id, after, remaining)
        finally:
            self._leave(match_id, tail)
        if 0 < len(stored) < MAX_EVENTS:
            last_seq = stored[-1].seq  # a read that was not cut short ends at the latest
        else:
            # Read after the events, so last_seq is never behind what the page holds.
            last_seq = await self.last_seq(match_id)
        return EventPage(tuple(for_viewer(e, seat) for e in stored), last_seq)

    async def stream(
        self, match_id: str, seat: int | None, after: int, seconds: float, finished: bool
    ) -> AsyncGenerator[EventView | None, None]:
        """Events past ``after`` as they happen, for ``seconds`` or until the match ends.

        ``None`` marks a quiet spell, so the transport can show the line is alive.
        """
        now = self.monotonic
        deadline = now() + seconds
        quiet_since = now()
        tail = self._follow(match_id)
        try:
            while True:
                stored = await self._events(match_id, tail, after)
                for event in stored:
                    yield for_viewer(event, seat)
                    after = event.seq
                    if isinstance(event, MatchFinished):
                        return
                if stored:
                    quiet_since = now()
                    continue
                moment = now()
                if finished or moment >= deadline or self._closing:
                    return
                if moment - quiet_since >= HEARTBEAT_SECONDS:
                    quiet_since = moment
                    yield None
                wake_by = min(deadline, quiet_since + HEARTBEAT_SECONDS)
                await self.bus.wait(match_id, after, wake_by - moment)
        finally:
            self._leave(match_id, tail)
