"""``scopa worker``: a process that plays AI turns and enforces the matches' moments
(clocks, expiries), apart from the API processes, until SIGTERM or SIGINT.

Any number of workers and API processes share one database: each AI turn is claimed by
one of them from the queue (``infra.ai_turns``), each moment enforced at the version it
was found at. A worker that dies leaves its turns to the others once their leases lapse.
"""

from __future__ import annotations

import asyncio
import logging
import signal

import prometheus_client

from scopa.infra.settings import Settings
from scopa.wiring import build_parts

log = logging.getLogger(__name__)


async def _work(settings: Settings) -> None:
    parts = build_parts(settings)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    await parts.start(play=True)
    log.info("AI worker %s playing, %d at once", parts.heartbeat.id, parts.runner.slots)
    try:
        await stopping.wait()
    finally:
        log.info("AI worker %s stopping", parts.heartbeat.id)
        await parts.stop()


def run_worker(settings: Settings, metrics_port: int = 0) -> int:
    if metrics_port:
        # Loopback only: the figures are for a scraper beside it, not the world.
        prometheus_client.start_http_server(metrics_port, addr="127.0.0.1")
    asyncio.run(_work(settings))
    return 0
