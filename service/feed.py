"""Following a match's log: a long poll answers once there is news, a stream goes on.

Waiting costs the database nothing: the bus wakes a waiter when news may have come, and
only then is the log read.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable

import msgspec

from domain.events import EventView, MatchFinished, for_viewer
from service.ports import EventBus, MatchReads

MAX_EVENTS = 500
MAX_WAIT = 30.0
# Proxies drop connections that stay silent; a comment this often keeps a stream open.
HEARTBEAT_SECONDS = 15.0


class EventPage(msgspec.Struct, frozen=True):
    events: tuple[EventView, ...]
    last_seq: int


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

    async def page(self, match_id: str, seat: int | None, after: int, wait: float) -> EventPage:
        """Events past ``after``, holding up to ``wait`` seconds until there is one."""
        deadline = self.monotonic() + min(wait, MAX_WAIT)
        while True:
            stored = await self.reads.events(match_id, after, MAX_EVENTS)
            remaining = deadline - self.monotonic()
            if stored or remaining <= 0:
                break
            await self.bus.wait(match_id, after, remaining)
        # Read after the events, so last_seq is never behind what the page holds.
        last_seq = await self.last_seq(match_id)
        return EventPage(tuple(for_viewer(e, seat) for e in stored), last_seq)

    async def stream(
        self, match_id: str, seat: int | None, after: int, seconds: float, finished: bool
    ) -> AsyncIterator[EventView | None]:
        """Events past ``after`` as they happen, for ``seconds`` or until the match ends.

        ``None`` marks a quiet spell, so the transport can show the line is alive.
        """
        now = self.monotonic
        deadline = now() + seconds
        quiet_since = now()
        while True:
            stored = await self.reads.events(match_id, after, MAX_EVENTS)
            for event in stored:
                yield for_viewer(event, seat)
                after = event.seq
                if isinstance(event, MatchFinished):
                    return
            if stored:
                quiet_since = now()
                continue
            moment = now()
            if finished or moment >= deadline:
                return
            if moment - quiet_since >= HEARTBEAT_SECONDS:
                quiet_since = moment
                yield None
            wake_by = min(deadline, quiet_since + HEARTBEAT_SECONDS)
            await self.bus.wait(match_id, after, wake_by - moment)
