"""How fast the real server plays moves over HTTP on Postgres, against bare Litestar.

    python -m bench.api [--seconds 15] [--warmup 3] [--matches 50] [--rounds 3]
                        [--paced 0.25,0.5,0.75]

Needs wrk (``apt-get install wrk``). Creates a Postgres database of its own
(``SCOPA_BENCH_PG``, default the local server as user postgres), migrates it with
``scopa migrate``, starts ``scopa serve`` on it with ``SCOPA_LIMITS=off`` (every other
setting at its default), creates the matches (two human seats each) and has wrk play
them: one wrk thread and one keep-alive connection per match, playing both seats in
turn (bench/wrk_client.lua says how), for the warm-up and then the measured seconds.
Then, in the same run, the same client at the same concurrency (same warm-up and seconds)
measures five routes of bench/bare_app.py, one process served as ``scopa serve`` serves
the real app, each for a phase of its own:

- ``GET /``, a small JSON object and nothing else: ``bare_rps``, the yardstick ``ratio``
  divides by.
- ``POST /echo/{i}``, a small JSON body read and a small JSON object answered, no storage:
  ``echo_*``, what any POST costs here.
- ``POST /write/{i}``, one committed write to the bench's database through an asyncpg
  pool the size of the server's (a version bump of row i of ``bench_floor`` and a
  ~200-byte row in ``bench_floor_events``, one statement): ``write_*``, what any POST
  that stores one change costs here, the floor under a stored move.
- ``POST /play/{i}``, the least a move does: the rules on a match kept in memory, the
  state and its events encoded and stored in one statement like the write's, the mover's
  view answered as the server answers it, and nothing else (no token, log line, metrics,
  idempotency, clock or notification): ``play_*``, what is left of a stored move's cost
  once everything the server does around it is taken away.
- ``POST /duties/{i}``, the play with what the contract and operations ask around every
  stored move, each in the server's own code or the cheapest form the stack offers: the
  seat token checked, the request id, the access-log line, the route's metrics, the
  clock, a bounded statement, the notification sent in it and heard back: ``duties_*``,
  the least any server on this stack could spend on a move that keeps the contract.

``move_alone_over_write_cpu`` is the issue's figure, a move alone's server CPU over the
write's; ``play_over_write_cpu`` says how much of it the least a move does takes by
itself, ``duties_over_write_cpu`` how much the least a move keeping the contract does.

Then, on that server, fresh matches and the same client GETting each match's view again
and again: ``view_server_cpu_ms_per_request``. The move run's own GETs (a view when a deal
has emptied the hand the client knew, about one in six moves), its 422s and its creates
are part of ``server_cpu_ms_per_move``, which divides all the run's CPU by its moves;
``server_cpu_ms_per_move_alone`` charges each of them what a view costs and divides the
rest: what the POST of a move costs by itself, the figure to set against ``write_*``.

Then, still on that server, the move run again at offered rates below saturation: for
each fraction of ``--paced`` (25%, 50% and 75% by default), fresh matches and the same
client, each connection pacing its requests on a fixed schedule (wrk's ``delay()``) so
that all of them offer that fraction of the requests a second the saturated run
completed: ``paced``, one row per fraction with the moves a second offered and achieved
and the move's p50/p99. Those are the latencies a player sees on a server that is busy
but not overrun; the saturated p99 is mostly time spent queued.

The two floors sit next to the move figures because on a small machine the targets a
move is held to (p99, moves/s against ``bare_rps``) can sit below what one committed
Postgres write allows at this concurrency: ``write_ratio`` (``write_rps / bare_rps``) and
``write_p99_ms`` say how close a stored move can get on this machine under this load, in
the same run, so the figures can be read together and reproduced. The database is dropped
and the servers stopped at the end.

The client is wrk with a Lua script, not a Python client: on two cores a Python client
(httpx, or even a minimal one on asyncio streams) spends more CPU per request than bare
Litestar does, and capped ``bare_rps`` at about a third of what wrk measures. The client
still shares the machine's cores with the server and Postgres, so the run also reports
each server process's own CPU time per request (Linux ``/proc``): the figure a busy
machine disturbs least.

A machine shared with other tenants runs the same code at different speeds from one
minute to the next: on this project's 2-core machine, one move run cost 0.84 ms of CPU a
move and another, minutes later, 1.38 ms, while the write stayed near 0.4 ms. So the
server and the bare app are both up throughout, and the move run, the view run and the
five bare phases follow one another ``--rounds`` times, each round on fresh matches.
The round whose move alone costs the median over its own write's stands for the run:
every figure but ``rounds`` (each round's CPU figures) and ``paced`` (run once, after the
rounds, against that round's saturated rate) is that round's.

Figures count what completed inside the measured window: ``moves_per_s``, ``p50_ms`` and
``p99_ms`` the accepted POST moves (200), ``requests_per_s`` every request of the move run
(moves, the 422s of ambiguous captures, GETs, creates). The last line is one JSON object
with every figure; ``echo_*`` and ``write_*`` count the 200s of their route.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "bench" / "wrk_client.lua"
ADMIN_DSN = os.environ.get("SCOPA_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
HOST = "127.0.0.1"
READY_SECONDS = 60.0
# The answer each client mode times (bench/wrk_client.lua names them): an accepted move,
# a view, or a 200 of a bare_app route.
TIMED = {
    "moves": "move",
    "views": "view",
    "bare": "bare",
    "echo": "echo",
    "write": "write",
    "play": "play",
    "duties": "duties",
}

# bench/bare_app.py's routes, a phase each, in this order.
FLOORS = ("bare", "echo", "write", "play", "duties")


class BenchError(Exception):
    """Something the bench did not expect: the run would not measure what it says."""


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far, or None without Linux's /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.perf_counter()))


def load(
    port: int, server: subprocess.Popen[bytes], args: argparse.Namespace, client_args: list[str]
) -> dict[str, Any]:
    """wrk against ``port`` for warm-up + seconds; the figures of the measured window."""
    logs, timed = Path(client_args[2]), TIMED[client_args[0]]
    total = args.warmup + args.seconds
    command = ["wrk", f"-t{args.matches}", f"-c{args.matches}", f"-d{math.ceil(total)}s"]
    command += ["--timeout", "60s", "-s", str(CLIENT), f"http://{HOST}:{port}", "--"]
    begin = time.perf_counter()
    wrk = subprocess.Popen(
        [*command, *client_args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        low, high = begin + args.warmup, begin + total
        sleep_until(low)
        cpu_before = cpu_seconds(server.pid)
        sleep_until(high)
        cpu_after = cpu_seconds(server.pid)
        output, _ = wrk.communicate(timeout=total + 120)
    finally:
        if wrk.poll() is None:
            wrk.kill()
            wrk.wait()
    if wrk.returncode:
        raise BenchError(f"wrk failed:\n{output}")

    latencies: list[float] = []
    kinds: Counter[str] = Counter()
    for path in logs.glob("thread-*.log"):
        for line in path.read_text().splitlines():
            end_text, latency_text, kind = line.split()
            if low <= float(end_text) <= high:
                kinds[kind] += 1
                if kind == timed:
                    latencies.append(float(latency_text))
    errors = {kind: n for kind, n in kinds.items() if kind.startswith("error")}
    if errors or not latencies:
        raise BenchError(f"unexpected answers {errors} or none timed:\n{output}")
    latencies.sort()
    seconds = high - low
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return {
        "per_s": len(latencies) / seconds,
        "requests_per_s": kinds.total() / seconds,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "kinds": dict(kinds),
        "latencies": latencies,
        "cpu_ms": None if cpu is None else cpu * 1000,
        "cpu_ms_each": None if cpu is None else cpu * 1000 / len(latencies),
        "cpu_share": None if cpu is None else cpu / seconds,
    }


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def create_matches(port: int, count: int, path: Path) -> None:
    """The matches wrk plays, one line each: id, seat 0's token, seat 1's, whose turn."""
    lines = []
    body = json.dumps({"seats": [{"kind": "human"}, {"kind": "human"}]}).encode()
    for _ in range(count):
        request = urllib.request.Request(
            f"http://{HOST}:{port}/v1/matches",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            created = json.load(answer)
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        match = created["match"]
        lines.append(f"{match['id']} {tokens[0]} {tokens[1]} {match['turn']}\n")
    path.write_text("".join(lines))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, *argv],
            cwd=ROOT,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_ready(port: int, path: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchError(f"server on :{port} not ready:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


async def admin(statement: str, dsn: str = ADMIN_DSN) -> None:
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def database_url(name: str, driver: str = "postgresql+asyncpg") -> str:
    url = make_url(ADMIN_DSN).set(drivername=driver, database=name)
    return url.render_as_string(hide_password=False)


def migrate(env: dict[str, str]) -> None:
    """``scopa migrate`` with ``env``: ``python -m infra.cli`` is ``scopa``, from this
    checkout rather than an installed copy."""
    migrated = subprocess.run(
        [sys.executable, "-m", "scopa.cli", "migrate"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    if migrated.returncode:
        raise BenchError(f"scopa migrate failed:\n{migrated.stderr}")


def paced_moves(
    port: int,
    server: subprocess.Popen[bytes],
    args: argparse.Namespace,
    folder: Path,
    saturated: dict[str, Any],
    fraction: float,
) -> dict[str, Any]:
    """The move run on fresh matches with every connection paced so that, together, they
    offer ``fraction`` of the requests a second the saturated run completed."""
    name = f"paced-{round(fraction * 100)}"
    matches, logs = folder / f"{name}.txt", folder / name
    create_matches(port, args.matches, matches)
    logs.mkdir()
    # Requests, not moves, are paced: the client cannot know which request is a move
    # until its answer, and the share of moves stays about what it was at saturation.
    interval = args.matches / (fraction * saturated["requests_per_s"])
    run = load(port, server, args, ["moves", str(matches), str(logs), f"{interval:.6f}"])
    return {
        "fraction": fraction,
        "offered_moves_per_s": round(fraction * saturated["per_s"], 1),
        "moves_per_s": round(run["per_s"], 1),
        "p50_ms": round(run["p50_ms"], 2),
        "p99_ms": round(run["p99_ms"], 2),
        "server_cpu_ms_per_move": None
        if run["cpu_ms_each"] is None
        else round(run["cpu_ms_each"], 3),
    }


def view_run(
    port: int, server: subprocess.Popen[bytes], args: argparse.Namespace, folder: Path
) -> dict[str, Any]:
    """Views alone at the move run's concurrency, on fresh matches: what each GET of the
    move run costs."""
    matches, logs = folder / "views.txt", folder / "views"
    create_matches(port, args.matches, matches)
    logs.mkdir()
    return load(port, server, args, ["views", str(matches), str(logs)])


def move_alone(moves: dict[str, Any], views: dict[str, Any]) -> float | None:
    """The move run's server CPU less what its other answers cost, over its moves: each
    view, 422 and create charged what a view costs alone (a create costs more, but there
    is about one in 200 moves)."""
    if moves["cpu_ms"] is None or views["cpu_ms_each"] is None:
        return None
    others = sum(n for kind, n in moves["kinds"].items() if kind != "move")
    alone: float = (moves["cpu_ms"] - others * views["cpu_ms_each"]) / moves["kinds"]["move"]
    return alone


def rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def ratio(part: float | None, whole: float | None) -> float | None:
    return None if part is None or not whole else round(part / whole, 2)


def write_cpu(run: dict[str, dict[str, Any]]) -> float | None:
    each: float | None = run["write"]["cpu_ms_each"]
    return each


def move_over_write(run: dict[str, dict[str, Any]]) -> float | None:
    """A round's figure for the target: a move alone's server CPU over the write's."""
    return ratio(move_alone(run["moves"], run["views"]), write_cpu(run))


def floor_tables(rows: int) -> str:
    """bench/bare_app.py's tables, for POST /write and for /play and /duties: one row per
    connection, no events yet."""
    return f"""
        CREATE TABLE bench_floor (id integer PRIMARY KEY, version integer NOT NULL);
        CREATE TABLE bench_floor_events (
            id integer, seq integer, payload bytea, PRIMARY KEY (id, seq)
        );
        INSERT INTO bench_floor (id, version) SELECT i, 0 FROM generate_series(0, {rows - 1}) i;
        CREATE TABLE bench_play (id integer PRIMARY KEY, version integer NOT NULL, state bytea);
        CREATE TABLE bench_play_events (
            id integer, version integer, seq integer, payload bytea,
            PRIMARY KEY (id, version, seq)
        );
        INSERT INTO bench_play (id, version) SELECT i, 0 FROM generate_series(0, {rows - 1}) i;
    """


def bench(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    name = f"scopa_bench_{secrets.token_hex(4)}"
    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    servers: list[subprocess.Popen[bytes]] = []
    try:
        env = {
            "SCOPA_DATABASE_URL": database_url(name),
            "SCOPA_LIMITS": "off",
            "SCOPA_AI_ONLY_MOVE_SECONDS": "0",
        }
        migrate(env)

        port, log = free_port(), folder / "scopa.log"
        serve = ["-m", "scopa.cli", "serve", "--host", HOST, "--port", str(port)]
        servers.append(start(serve, env, log))
        wait_ready(port, "/ready", servers[-1], log)
        plain = database_url(name, "postgresql")
        asyncio.run(admin(floor_tables(args.matches), plain))
        bare_port, bare_log = free_port(), folder / "bare.log"
        bare_app = ["-m", "bench.bare_app", "--port", str(bare_port), "--database", plain]
        servers.append(start(bare_app, {}, bare_log))
        wait_ready(bare_port, "/", servers[-1], bare_log)
        server, bare_server = servers
        runs = []
        for number in range(args.rounds):
            here = folder / f"round-{number}"
            here.mkdir()
            matches = here / "matches.txt"
            create_matches(port, args.matches, matches)
            (here / "moves").mkdir()
            run = {"moves": load(port, server, args, ["moves", str(matches), str(here / "moves")])}
            run["views"] = view_run(port, server, args, here)
            for mode in FLOORS:
                (here / mode).mkdir()
                run[mode] = load(bare_port, bare_server, args, [mode, "-", str(here / mode)])
            runs.append(run)
        # The round whose move costs the median over the write's stands for the run.
        runs.sort(key=lambda run: move_over_write(run) or 0.0)
        chosen = runs[(len(runs) - 1) // 2]
        paced = [paced_moves(port, server, args, folder, chosen["moves"], f) for f in args.paced]
    finally:
        for process in servers:
            stop(process)
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    moves, views = chosen["moves"], chosen["views"]
    bare, echo, write, least, duties = (chosen[mode] for mode in FLOORS)

    return {
        "moves_per_s": round(moves["per_s"], 1),
        "p50_ms": round(moves["p50_ms"], 2),
        "p99_ms": round(moves["p99_ms"], 2),
        "paced": paced,
        "bare_rps": round(bare["per_s"], 1),
        "ratio": round(moves["per_s"] / bare["per_s"], 4),
        "requests_per_s": round(moves["requests_per_s"], 1),
        "requests": moves["kinds"],
        "server_cpu_ms_per_move": rounded(moves["cpu_ms_each"]),
        "server_cpu_share": rounded(moves["cpu_share"], 2),
        "view_server_cpu_ms_per_request": rounded(views["cpu_ms_each"]),
        "server_cpu_ms_per_move_alone": rounded(move_alone(moves, views)),
        "bare_p50_ms": round(bare["p50_ms"], 2),
        "bare_p99_ms": round(bare["p99_ms"], 2),
        "bare_server_cpu_ms_per_request": rounded(bare["cpu_ms_each"]),
        "bare_server_cpu_share": rounded(bare["cpu_share"], 2),
        "echo_rps": round(echo["per_s"], 1),
        "echo_p50_ms": round(echo["p50_ms"], 2),
        "echo_p99_ms": round(echo["p99_ms"], 2),
        "echo_server_cpu_ms_per_request": rounded(echo["cpu_ms_each"]),
        "echo_server_cpu_share": rounded(echo["cpu_share"], 2),
        "write_rps": round(write["per_s"], 1),
        "write_p50_ms": round(write["p50_ms"], 2),
        "write_p99_ms": round(write["p99_ms"], 2),
        "write_ratio": round(write["per_s"] / bare["per_s"], 4),
        "write_server_cpu_ms_per_request": rounded(write["cpu_ms_each"]),
        "write_server_cpu_share": rounded(write["cpu_share"], 2),
        "play_rps": round(least["per_s"], 1),
        "play_p50_ms": round(least["p50_ms"], 2),
        "play_p99_ms": round(least["p99_ms"], 2),
        "play_server_cpu_ms_per_request": rounded(least["cpu_ms_each"]),
        "play_server_cpu_share": rounded(least["cpu_share"], 2),
        "duties_rps": round(duties["per_s"], 1),
        "duties_p50_ms": round(duties["p50_ms"], 2),
        "duties_p99_ms": round(duties["p99_ms"], 2),
        "duties_server_cpu_ms_per_request": rounded(duties["cpu_ms_each"]),
        "duties_server_cpu_share": rounded(duties["cpu_share"], 2),
        # The target's figure (at most 2), and what the least a move does leaves of it.
        "move_alone_over_write_cpu": move_over_write(chosen),
        "play_over_write_cpu": ratio(least["cpu_ms_each"], write["cpu_ms_each"]),
        "duties_over_write_cpu": ratio(duties["cpu_ms_each"], write["cpu_ms_each"]),
        "rounds": [
            {
                "move_alone_over_write_cpu": move_over_write(run),
                "play_over_write_cpu": ratio(run["play"]["cpu_ms_each"], write_cpu(run)),
                "duties_over_write_cpu": ratio(run["duties"]["cpu_ms_each"], write_cpu(run)),
                "server_cpu_ms_per_move_alone": rounded(move_alone(run["moves"], run["views"])),
                "write_server_cpu_ms_per_request": rounded(write_cpu(run)),
            }
            for run in runs
        ],
        "connections": args.matches,
        "seconds": args.seconds,
        "warmup": args.warmup,
        "client": "wrk + bench/wrk_client.lua, one thread per keep-alive connection",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def fractions(text: str) -> tuple[float, ...]:
    values = tuple(float(part) for part in text.split(",") if part.strip())
    if not all(0 < value < 1 for value in values):
        raise argparse.ArgumentTypeError("fractions between 0 and 1, e.g. 0.25,0.5")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--matches", type=int, default=50, help="and connections")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="the move, view and floor runs, one after the other, this many times",
    )
    parser.add_argument(
        "--paced",
        type=fractions,
        default=(0.25, 0.5, 0.75),
        help="offered rates after the saturated run, as fractions of it (comma-separated)",
    )
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        print("bench.api needs wrk: apt-get install wrk", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as folder:
        figures = bench(args, Path(folder))
    print(
        f"moves: {figures['moves_per_s']:.0f}/s on {args.matches} matches at once, "
        f"POST move p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms "
        f"({figures['requests_per_s']:.0f} requests/s in all: {figures['requests']})"
    )
    if figures["server_cpu_ms_per_move"] is not None:
        print(
            f"  server CPU: {figures['server_cpu_ms_per_move']:.2f} ms a move, "
            f"{figures['server_cpu_share']:.0%} of one core; "
            f"{figures['server_cpu_ms_per_move_alone']:.2f} ms a move alone, "
            f"{figures['view_server_cpu_ms_per_request']:.2f} ms a view"
        )
    for row in figures["paced"]:
        print(
            f"  offered {row['fraction']:.0%} of that ({row['offered_moves_per_s']:.0f} moves/s):"
            f" {row['moves_per_s']:.0f} moves/s, POST move p50 {row['p50_ms']:.1f} ms,"
            f" p99 {row['p99_ms']:.1f} ms"
        )
    print(
        f"bare Litestar: {figures['bare_rps']:.0f} requests/s, "
        f"p50 {figures['bare_p50_ms']:.1f} ms, p99 {figures['bare_p99_ms']:.1f} ms"
    )
    if figures["bare_server_cpu_ms_per_request"] is not None:
        print(
            f"  server CPU: {figures['bare_server_cpu_ms_per_request']:.3f} ms a request, "
            f"{figures['bare_server_cpu_share']:.0%} of one core"
        )
    for key, label in (
        ("echo", "POST, no storage"),
        ("write", "POST, one committed write"),
        ("play", "POST, the least a move does"),
        ("duties", "POST, the least a move keeping the contract does"),
    ):
        print(
            f"{label} (/{key}): {figures[f'{key}_rps']:.0f} requests/s, "
            f"p50 {figures[f'{key}_p50_ms']:.1f} ms, p99 {figures[f'{key}_p99_ms']:.1f} ms"
        )
        if figures[f"{key}_server_cpu_ms_per_request"] is not None:
            print(
                f"  server CPU: {figures[f'{key}_server_cpu_ms_per_request']:.3f} ms a request, "
                f"{figures[f'{key}_server_cpu_share']:.0%} of one core"
            )
    print(f"moves/s over bare requests/s: {figures['ratio']:.1%}")
    print(f"write requests/s over bare requests/s: {figures['write_ratio']:.1%}")
    if figures["move_alone_over_write_cpu"] is not None:
        print(
            f"server CPU over the write's: {figures['move_alone_over_write_cpu']:.2f} times"
            f" for a move alone, {figures['play_over_write_cpu']:.2f} for the least a move does,"
            f" {figures['duties_over_write_cpu']:.2f} for the least keeping the contract"
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
