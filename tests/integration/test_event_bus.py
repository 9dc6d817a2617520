"""Event buses: wake-ups in one process, and across processes through Postgres."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from scopa.infra.notify import CHANNEL, LocalEventBus, PostgresEventBus, notice
from tests.support.eventually import eventually


async def test_a_publish_wakes_a_waiter_of_that_match() -> None:
    bus = LocalEventBus()
    waiter = asyncio.create_task(bus.wait("m1", after=3, seconds=5))
    # Woken by news published after the rest, to tell that the rest was dealt with.
    marker = asyncio.create_task(bus.wait("marker", after=0, seconds=5))
    await eventually(lambda: bus.waiting == 2)

    await bus.publish("m2", 9)
    await bus.publish("m1", 3)
    await bus.publish("marker", 1)
    # Not woken, with no fixed wait: a publish wakes its waiters at once and the loop
    # runs them first come first served, so once the marker's waiter is done, a wake-up
    # of ``waiter`` by the news before would have ended it too.
    assert await marker is True
    assert not waiter.done()
    await bus.publish("m1", 4)

    assert await waiter is True
    assert bus.waiting == 0


async def test_a_wait_without_news_times_out() -> None:
    bus = LocalEventBus()
    started = time.monotonic()

    assert await bus.wait("m1", after=0, seconds=0.05) is False

    assert 0.04 < time.monotonic() - started < 1
    assert bus.waiting == 0


async def test_news_announced_before_the_wait_answers_at_once() -> None:
    bus = LocalEventBus()
    await bus.publish("m1", 5)

    assert await bus.wait("m1", after=4, seconds=5) is True
    assert await bus.wait("m1", after=5, seconds=0.01) is False


async def test_a_cancelled_wait_leaves_nothing_behind() -> None:
    bus = LocalEventBus()
    waiters = [asyncio.create_task(bus.wait("m1", 0, 30)) for _ in range(3)]
    await eventually(lambda: bus.waiting == 3)

    for waiter in waiters:
        waiter.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)

    assert bus.waiting == 0
    await bus.publish("m1", 1)


async def test_one_publish_wakes_every_waiter_behind_it() -> None:
    bus = LocalEventBus()
    behind = [asyncio.create_task(bus.wait("m1", after, 5)) for after in (0, 1, 2)]
    ahead = asyncio.create_task(bus.wait("m1", 3, 0.2))
    await eventually(lambda: bus.waiting == 4)

    await bus.publish("m1", 3)

    assert await asyncio.gather(*behind) == [True, True, True]
    assert await ahead is False


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(False)


@pytest.fixture
async def buses(postgres_url: str) -> AsyncIterator[tuple[PostgresEventBus, PostgresEventBus]]:
    """Two buses on one database, standing for two server processes."""
    pair = (PostgresEventBus(postgres_url), PostgresEventBus(postgres_url))
    for bus in pair:
        await bus.start()
    try:
        await eventually(lambda: all(bus.listening for bus in pair))
        yield pair
    finally:
        for bus in pair:
            await bus.stop()


async def notify(dsn: str, match_id: str, seq: int, ai_to_play: bool = False) -> None:
    """What a save by another process sends (``sql_stores(notify=CHANNEL)``)."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, notice(match_id, seq, ai_to_play))
    finally:
        await conn.close()


async def listeners(dsn: str) -> set[int]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity"
            " WHERE application_name = 'scopa-listener' AND datname = current_database()"
        )
    finally:
        await conn.close()
    return {row["pid"] for row in rows}


@pytest.mark.postgres
async def test_a_publish_in_one_process_wakes_a_waiter_in_another(
    buses: tuple[PostgresEventBus, PostgresEventBus], postgres_url: str
) -> None:
    here, _ = buses
    waiter = asyncio.create_task(here.wait("m1", after=0, seconds=5))
    await eventually(lambda: here.waiting == 1)

    await notify(_dsn(postgres_url), "m1", 1)

    assert await waiter is True
    assert await here.wait("m1", after=0, seconds=0.01) is True


@pytest.mark.postgres
async def test_only_a_change_that_leaves_an_ai_to_play_wakes_the_ai_runner(
    postgres_url: str,
) -> None:
    heard: list[str] = []
    bus = PostgresEventBus(postgres_url, heard=heard.append)
    await bus.start()
    try:
        await eventually(lambda: bus.listening)
        await notify(_dsn(postgres_url), "humans", 3)
        await notify(_dsn(postgres_url), "with-ai", 4, ai_to_play=True)
        await eventually(lambda: heard == ["with-ai"])
        # Both were heard as news all the same.
        assert await bus.wait("humans", after=2, seconds=0.01) is True
        assert await bus.wait("with-ai", after=3, seconds=0.01) is True
    finally:
        await bus.stop()


@pytest.mark.postgres
async def test_a_dropped_listener_reconnects(
    buses: tuple[PostgresEventBus, PostgresEventBus], postgres_url: str
) -> None:
    here, there = buses
    dsn = _dsn(postgres_url)
    before = await listeners(dsn)
    assert len(before) == 2
    stranded = asyncio.create_task(here.wait("m1", after=0, seconds=20))
    await eventually(lambda: here.waiting == 1)

    admin = await asyncpg.connect(dsn)
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'scopa-listener' AND datname = current_database()"
        )
    finally:
        await admin.close()

    # A wait spanning the outage may have missed news: it is woken to look again.
    assert await asyncio.wait_for(stranded, 10) is True

    async def back() -> bool:
        return len((await listeners(dsn)) - before) >= 2

    await eventually(back)
    await eventually(lambda: here.listening and there.listening)

    waiter = asyncio.create_task(here.wait("m2", after=0, seconds=5))
    await eventually(lambda: here.waiting == 1)
    await notify(dsn, "m2", 1)
    assert await waiter is True


async def test_publishing_while_postgres_is_away_still_wakes_this_process() -> None:
    bus = PostgresEventBus("postgresql://postgres@127.0.0.1:9/nowhere")
    await bus.start()
    try:
        waiter = asyncio.create_task(bus.wait("m1", after=0, seconds=5))
        await eventually(lambda: bus.waiting == 1)

        await bus.publish("m1", 1)

        assert await waiter is True
        assert not bus.listening
    finally:
        await bus.stop()


async def test_a_bus_that_cannot_listen_bounds_each_wait() -> None:
    bus = PostgresEventBus("postgresql://postgres@127.0.0.1:9/nowhere")
    await bus.start()
    try:
        started = time.monotonic()
        # Other processes' news would go unheard: the waiter must look for itself soon.
        assert await bus.wait("m1", after=0, seconds=30) is False
        assert time.monotonic() - started < 5
    finally:
        await bus.stop()


@pytest.mark.postgres
async def test_a_listening_bus_holds_a_wait_to_its_end(
    buses: tuple[PostgresEventBus, PostgresEventBus],
) -> None:
    here, _ = buses
    await eventually(lambda: here.listening)
    started = time.monotonic()

    assert await here.wait("m1", after=0, seconds=2.5) is False

    # Nothing in between: a waiting long poll costs no reads while the bus hears.
    assert time.monotonic() - started >= 2.4
