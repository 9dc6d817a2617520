"""Crowds, measured: spectator streams on one process, and moves over several processes.

    python -m bench.scale [--streams 100,1000,5000] [--moves 10] [--processes 1,2,3]
                          [--seconds 10] [--warmup 3] [--matches 50]

On a Postgres database of its own (``SCOPA_BENCH_PG``, as bench/api.py), migrated with
``scopa migrate``, with ``SCOPA_LIMITS=off`` and no per-address connection cap:

- **Event delivery.** One ``scopa serve``. For each N: N spectator streams (Server-Sent
  Events, spread over loopback source addresses) on one match; then ``--moves`` moves,
  one a second, each timed from its 200 (``move_*``), and for each, the time from that
  200 until the move's first event reached the last of the N streams (``delivery_*``).
  The server's resident memory before and after the N streams were open gives the memory
  per open stream. The client is one asyncio process reading every stream (it shares the
  two cores with the server and Postgres: its own CPU per event is part of what
  delivery includes).
- **Moves over processes.** For k in ``--processes``: k ``scopa serve`` on the one
  database, and one wrk (bench/wrk_client.lua, as bench/api.py) per process playing its
  share of ``--matches`` matches: moves a second and the move's p50/p99 over all of them.

The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.api import (
    HOST,
    BenchError,
    admin,
    cpu_seconds,
    create_matches,
    database_url,
    free_port,
    load,
    migrate,
    percentile,
    start,
    stop,
    wait_ready,
)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError("no VmRSS")


@contextmanager
def database() -> Iterator[dict[str, str]]:
    name = f"scopa_bench_{secrets.token_hex(4)}"
    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    env = {
        "SCOPA_DATABASE_URL": database_url(name),
        "SCOPA_RATE_LIMIT": "0",
        "SCOPA_AI_ONLY_MOVE_SECONDS": "0",
        "SCOPA_LIMITS": "off",
        "SCOPA_CONNECTIONS_PER_ADDRESS": "0",
        "SCOPA_MAX_CONNECTIONS": "20000",
    }
    try:
        migrate(env)
        yield env
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def servers(count: int, env: dict[str, str], folder: Path) -> Iterator[list[tuple[int, Any]]]:
    started: list[tuple[int, Any]] = []
    try:
        for i in range(count):
            port, log = free_port(), folder / f"scopa-{count}-{i}.log"
            serve = ["-m", "scopa.cli", "serve", "--host", HOST, "--port", str(port)]
            started.append((port, start(serve, env, log)))
            wait_ready(port, "/ready", started[-1][1], log)
        yield started
    finally:
        for _, process in started:
            stop(process)


async def play_one(
    client: httpx.AsyncClient, match_id: str, tokens: dict[int, str]
) -> tuple[float, float]:
    """One legal move of the seat to play: the seconds its POST took, and when it answered."""
    view = (await client.get(f"/v1/matches/{match_id}")).json()
    seat = view["turn"]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    mine = (await client.get(f"/v1/matches/{match_id}", headers=auth)).json()
    move = mine["legal_moves"][0]
    body = {"card": move["card"], "capture": move["capture"]}
    started = time.perf_counter()
    answer = await client.post(f"/v1/matches/{match_id}/moves", json=body, headers=auth)
    answered = time.perf_counter()
    if answer.status_code != 200:
        raise BenchError(f"move refused: {answer.status_code} {answer.text}")
    return answered - started, answered


ROOT = Path(__file__).resolve().parents[1]


class Spectators:
    """N spectator streams on one match, read by bench/stream_reader.py in a process of
    its own, seen from the mover's side."""

    def __init__(self, reader: asyncio.subprocess.Process) -> None:
        assert reader.stdin is not None
        assert reader.stdout is not None
        self._stdin = reader.stdin
        self._stdout = reader.stdout

    async def reached(self, seq: int) -> float | None:
        """The ``time.perf_counter()`` at which the last stream got ``seq``; None if not
        every stream had it within the reader's wait (10 s)."""
        self._stdin.write(f"{seq}\n".encode())
        await self._stdin.drain()
        said, moment = (await self._stdout.readline()).decode().split()
        if said != str(seq):
            raise BenchError(f"the reader answered for seq {said}, not {seq}")
        return None if moment == "timeout" else float(moment)


@asynccontextmanager
async def spectators(port: int, path: str, n: int) -> AsyncIterator[Spectators]:
    """Once every one of ``n`` streams of ``path`` has had its first event."""
    reader = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-m", "bench.stream_reader", "--port", str(port), "--path", path),
        *("--streams", str(n)),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert reader.stdout is not None
        said = (await reader.stdout.readline()).decode().strip()
        if said != "open":
            raise BenchError(f"streams: {said}")
        yield Spectators(reader)
    finally:
        if reader.returncode is None:
            reader.kill()
        await reader.wait()


async def delivery(port: int, pid: int, n: int, moves: int) -> dict[str, Any]:
    base = f"http://{HOST}:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        created = (await client.post("/v1/matches", json={"seats": [{"kind": "human"}] * 2})).json()
        match_id = created["match"]["id"]
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        before_kb = rss_kb(pid)
        path = f"/v1/matches/{match_id}/events/stream"
        async with spectators(port, path, n) as crowd:
            await asyncio.sleep(1.0)
            open_kb = rss_kb(pid)
            move_s: list[float] = []
            delivered: list[float] = []
            cpu: list[float] = []
            for _ in range(moves):
                last = (await client.get(f"/v1/matches/{match_id}/events")).json()["last_seq"]
                cpu_before = cpu_seconds(pid)
                took, answered = await play_one(client, match_id, tokens)
                move_s.append(took)
                seq = last + 1
                moment = await crowd.reached(seq)
                if moment is None:
                    raise BenchError(f"seq {seq} did not reach every stream in 10 s")
                delivered.append(moment - answered)
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - answered)))
                cpu_after = cpu_seconds(pid)
                if cpu_before is not None and cpu_after is not None:
                    cpu.append(cpu_after - cpu_before)
    move_s.sort()
    delivered.sort()
    return {
        "streams": n,
        "move_p50_ms": round(percentile(move_s, 0.5) * 1000, 2),
        "move_p99_ms": round(percentile(move_s, 0.99) * 1000, 2),
        "delivery_p50_ms": round(percentile(delivered, 0.5) * 1000, 1),
        "delivery_p99_ms": round(percentile(delivered, 0.99) * 1000, 1),
        "server_cpu_ms_per_move": round(sum(cpu) / len(cpu) * 1000, 1) if cpu else None,
        "rss_kb_per_stream": round((open_kb - before_kb) / n, 1),
    }


def moves_over(k: int, env: dict[str, str], args: argparse.Namespace, folder: Path) -> Any:
    with servers(k, env, folder) as running:
        share = max(1, args.matches // k)
        runs = []
        for i, (port, process) in enumerate(running):
            matches = folder / f"matches-{k}-{i}.txt"
            create_matches(port, share, matches)
            logs = folder / f"moves-{k}-{i}"
            logs.mkdir()
            runs.append((port, process, matches, logs))
        share_args = argparse.Namespace(**{**vars(args), "matches": share})
        results: list[dict[str, Any]] = [{} for _ in runs]

        def one(i: int) -> None:
            port, process, matches, logs = runs[i]
            results[i] = load(port, process, share_args, ["moves", str(matches), str(logs)])

        threads = [threading.Thread(target=one, args=(i,)) for i in range(k)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    # The measured window's accepted moves, as bench/api.py counts them.
    latencies = [latency for r in results for latency in r["latencies"]]
    latencies.sort()
    return {
        "processes": k,
        "moves_per_s": round(sum(r["per_s"] for r in results), 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", default="100,1000,5000")
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--processes", default="1,2,3")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--matches", type=int, default=48)
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"deliveries": [], "scale_out": []}
    with tempfile.TemporaryDirectory(prefix="scopa-scale-") as tmp, database() as env:
        folder = Path(tmp)
        with servers(1, env, folder) as [(port, process)]:
            for n in (int(x) for x in args.streams.split(",") if x):
                row = asyncio.run(delivery(port, process.pid, n, args.moves))
                print(
                    f"{n} streams: move p50 {row['move_p50_ms']} ms, p99 {row['move_p99_ms']} "
                    f"ms; event at the last stream p50 {row['delivery_p50_ms']} ms, p99 "
                    f"{row['delivery_p99_ms']} ms; server CPU {row['server_cpu_ms_per_move']} ms a "
                    f"move; {row['rss_kb_per_stream']} kB a stream"
                )
                figures["deliveries"].append(row)
        for k in (int(x) for x in args.processes.split(",") if x):
            row = moves_over(k, env, args, folder)
            print(
                f"{k} API processes: {row['moves_per_s']} moves/s, p50 {row['p50_ms']} ms, "
                f"p99 {row['p99_ms']} ms"
            )
            figures["scale_out"].append(row)
    figures |= {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
