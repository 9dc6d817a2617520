"""The spectators of bench/scale.py, in a process of their own: N SSE streams on one match.

    python -m bench.stream_reader --port P --path /v1/matches/ID/events/stream --streams N

Opens the streams (from loopback source addresses 127.0.1.1 ..., a batch at a time) and
prints ``open`` once every one has had its first event. Then, for each seq written to its
standard input, one line: ``<seq> <time>``, the ``time.perf_counter()`` at which the
last of the N streams got that seq (the clock is the system's monotonic one, so the
mover in the other process can compare it with its own), or ``<seq> timeout``.

Kept out of the mover's process so that a move's answer is not read late because the
same event loop is busy reading thousands of streams; each stream is a bare
``asyncio.Protocol`` that only looks for ``id:`` lines, so the client spends as little
CPU per event as it can and leaves the cores to the server.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time

SOURCES = 200  # loopback source addresses the streams come from
OPEN_BATCH = 250
OPEN_SECONDS = 60.0  # per batch
WAIT_SECONDS = 10.0
ID_LINE = re.compile(rb"^id: (\d+)\r?$", re.MULTILINE)


def source(i: int) -> str:
    j = i % SOURCES
    return f"127.0.{1 + j // 250}.{1 + j % 250}"


class Tally:
    """For each seq, how many streams have it and when the latest of them got it."""

    def __init__(self) -> None:
        self.count: dict[int, int] = {}
        self.last: dict[int, float] = {}
        self.changed = asyncio.Event()

    def seen(self, seq: int, moment: float) -> None:
        self.count[seq] = self.count.get(seq, 0) + 1
        self.last[seq] = moment
        self.changed.set()


class Spectator(asyncio.Protocol):
    def __init__(self, request: bytes, tally: Tally) -> None:
        self.request = request
        self.tally = tally
        self.pending = b""
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        moment = time.perf_counter()
        text = self.pending + data
        end = text.rfind(b"\n") + 1
        # Whole lines only: an id line may be cut between two reads.
        for match in ID_LINE.finditer(text[:end]):
            self.tally.seen(int(match[1]), moment)
        self.pending = text[end:]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)


async def until(tally: Tally, seq: int, streams: int, seconds: float) -> bool:
    """Wait until ``streams`` streams have ``seq``; False if ``seconds`` pass first."""
    deadline = time.perf_counter() + seconds
    while tally.count.get(seq, 0) < streams:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        tally.changed.clear()
        try:
            await asyncio.wait_for(tally.changed.wait(), remaining)
        except TimeoutError:
            return False
    return True


async def run(port: int, path: str, n: int) -> int:
    loop = asyncio.get_running_loop()
    tally = Tally()
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    spectators: list[Spectator] = []
    for start in range(0, n, OPEN_BATCH):
        # A batch at a time: thousands of connects at once overflow the listen backlog.
        batch = range(start, min(n, start + OPEN_BATCH))
        made = await asyncio.gather(
            *(
                loop.create_connection(
                    lambda: Spectator(request, tally), "127.0.0.1", port, local_addr=(source(i), 0)
                )
                for i in batch
            )
        )
        spectators += [protocol for _, protocol in made]
        # Every stream starts from seq 1, the match's first event.
        if not await until(tally, 1, len(spectators), OPEN_SECONDS):
            print(f"not open: {len(spectators)} streams, {tally.count}", flush=True)
            return 1
        if any(s.lost.done() for s in spectators):
            print("not open: a stream closed", flush=True)
            return 1
    print("open", flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        seq = int(line)
        if await until(tally, seq, n, WAIT_SECONDS):
            print(f"{seq} {tally.last[seq]!r}", flush=True)
        else:
            print(f"{seq} timeout", flush=True)
    for s in spectators:
        if s.transport is not None:
            s.transport.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--streams", type=int, required=True)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.port, args.path, args.streams))


if __name__ == "__main__":
    sys.exit(main())
