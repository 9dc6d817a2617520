"""Event buses: wake-ups for long polls and streams when a match gets new events, and for
the asker of a hint when a worker answered it.

A wake-up is only a hint: waiters read the events from the store afterwards, so a lost
or doubled notification costs latency, never correctness.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable

import asyncpg
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

CHANNEL = "scopa_events"
# While the listener is down, other processes' news goes unheard: waits end this soon, so
# waiters look in the store for themselves.
DEAF_WAIT_SECONDS = 1.0
# Latest seqs remembered, most recently announced last; enough to cover every match a
# waiter could be between reading the store and starting to wait on.
REMEMBERED = 10_000


def notice(match_id: str, seq: int, ai_to_play: bool) -> str:
    """What a save sends on the channel: the match and its latest seq, marked when the
    change leaves an AI to play, so that only then are AI runners woken to claim it (a
    claim is a statement; a humans' move need not cost every process one)."""
    return f"{match_id}:{seq}:ai" if ai_to_play else f"{match_id}:{seq}"


def hint_notice(match_id: str, seq: int) -> str:
    """What asking a worker for a hint sends: the match at the seq it stands at (no waiter
    of the match has news), marked so that only the hint runners are woken."""
    return f"{match_id}:{seq}:hint"


def answer_notice(job: str) -> str:
    """What a worker's answer to an asked hint sends: the job as if it were a match at seq 1,
    so the asker waits on the bus for it (``wait(job, 0, ...)``) as for a match's news."""
    return f"{job}:1:answer"


class LocalEventBus:
    """Wake-ups within this process."""

    def __init__(self) -> None:
        self._waiters: dict[str, dict[asyncio.Future[None], int]] = {}
        # Closes the gap between a waiter reading the store and registering: an event
        # announced in between is remembered here and answers the wait at once.
        self._latest: OrderedDict[str, int] = OrderedDict()

    async def publish(self, match_id: str, seq: int) -> None:
        self.announce(match_id, seq)

    def announce(self, match_id: str, seq: int) -> None:
        """Wake the waiters of ``match_id`` that have not seen ``seq``."""
        if seq > self._latest.get(match_id, 0):
            self._latest[match_id] = seq
        self._latest.move_to_end(match_id)
        if len(self._latest) > REMEMBERED:
            self._latest.popitem(last=False)
        for future, after in self._waiters.get(match_id, {}).items():
            if seq > after and not future.done():
                future.set_result(None)

    def wake_all(self) -> None:
        """Wake every waiter: announcements may have been lost, let them look."""
        for waiters in self._waiters.values():
            for future in waiters:
                if not future.done():
                    future.set_result(None)

    async def wait(self, match_id: str, after: int, seconds: float) -> bool:
        if self._latest.get(match_id, 0) > after:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiters = self._waiters.setdefault(match_id, {})
        waiters[future] = after
        try:
            async with asyncio.timeout(seconds):
                await future
        except TimeoutError:
            return False
        finally:
            del waiters[future]
            if not waiters:
                del self._waiters[match_id]
        return True

    @property
    def waiting(self) -> int:
        """How many waits are in progress."""
        return sum(len(waiters) for waiters in self._waiters.values())


class PostgresEventBus(LocalEventBus):
    """Wake-ups across processes through Postgres LISTEN/NOTIFY.

    One dedicated connection listens, reconnecting with backoff when it drops. The
    stores send the NOTIFY inside each change they store (``sql_stores(notify=CHANNEL)``),
    which costs no round trip of its own, so ``publish`` only wakes this process. Call
    ``start`` once the event loop runs and ``stop`` at shutdown. ``heard`` is told the
    match of every change heard from any process that leaves an AI to play (the AI runner
    looks for a turn to claim), ``hinted`` the match of every hint asked of the workers.
    """

    def __init__(
        self,
        dsn: str,
        *,
        health_interval: float = 10.0,
        max_backoff: float = 5.0,
        heard: Callable[[str], None] | None = None,
        hinted: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self._heard = heard
        self._hinted = hinted
        # Accept the SQLAlchemy URL of the store as well as a plain libpq one.
        self._dsn = make_url(dsn).set(drivername="postgresql").render_as_string(False)
        self._health_interval = health_interval
        self._max_backoff = max_backoff
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    @property
    def listening(self) -> bool:
        """Whether notifications from other processes are being received now."""
        return self._listening.is_set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen_forever(), name="scopa-listen")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.wake_all()

    async def wait(self, match_id: str, after: int, seconds: float) -> bool:
        if not self.listening:
            seconds = min(seconds, DEAF_WAIT_SECONDS)
        return await super().wait(match_id, after, seconds)

    async def _listen_forever(self) -> None:
        backoff = 0.1
        while True:
            try:
                await self._listen_once()
                backoff = 0.1
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
                log.warning("event listener: %s; reconnecting in %.1fs", e, backoff)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    async def _listen_once(self) -> None:
        """Listen until the connection drops or fails its health check."""
        conn = await asyncpg.connect(
            self._dsn,
            timeout=3,
            command_timeout=5,
            server_settings={"application_name": "scopa-listener"},
        )
        lost = asyncio.Event()
        try:
            conn.add_termination_listener(lambda _conn: lost.set())
            await conn.add_listener(CHANNEL, self._on_notify)
            self._listening.set()
            # Notifications sent while nobody listened are gone: let waiters re-read.
            self.wake_all()
            # A peer that vanishes without closing the socket is noticed only by asking.
            while not lost.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._health_interval):
                        await lost.wait()
                if not lost.is_set():
                    await conn.fetchval("SELECT 1")
        finally:
            self._listening.clear()
            conn.terminate()
            # Waits begun while listening trust the bus for their whole length: end them,
            # so each looks in the store and waits again, bounded, until the bus hears.
            self.wake_all()

    def _on_notify(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        match_id, _, rest = payload.partition(":")
        seq, _, mark = rest.partition(":")
        if match_id and seq.isdigit():
            self.announce(match_id, int(seq))
            if self._heard is not None and mark == "ai":
                self._heard(match_id)
            elif self._hinted is not None and mark == "hint":
                self._hinted(match_id)
