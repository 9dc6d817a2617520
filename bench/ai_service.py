"""The AI as a service: AI turns per second with 1 and 2 ``scopa worker`` processes, and
the human's AI reply latency (median, p99) with and without a flood.

On a fresh Postgres database (``bench.scale.database``, unpaced, quotas off):

1. Throughput: ``scopa serve`` with ``SCOPA_AI_IN_PROCESS=off`` and W workers of one AI
   process each; M matches of two expert AI seats play for ``--seconds``; the AI turns
   stored in that time (the versions the matches gained), per second.
2. Latency: one ``scopa serve`` playing AI itself (2 AI processes); a human plays an
   expert, timed from the 200 of its move to the AI's ``card_played`` on a long poll
   (docs/api.md, "How AI moves reach you"), first alone, then while one address floods:
   30 matches of four expert AI seats and 12 loops of expert hints, ten a second each.
3. Hints: ``--hints`` hard hints asked one after another, timed from the request to its
   200, of an API process running no AI with one worker, then of the latency phase's
   ``scopa serve`` before its flood.

Run: ``python bench/ai_service.py`` (about a minute); the last line is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.api import HOST, percentile, start, stop
from bench.scale import database, servers

EXPERTS = {"seats": [{"kind": "ai", "level": "expert"}] * 2}
FOUR_EXPERTS = {"seats": [{"kind": "ai", "level": "expert"}] * 4}
HUMAN_VS_EXPERT = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "expert"}]}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def workers(count: int, env: dict[str, str], folder: Path) -> Iterator[None]:
    started = []
    try:
        for i in range(count):
            log = folder / f"worker-{count}-{i}.log"
            started.append(start(["-m", "scopa.cli", "worker"], env, log))
        deadline = time.monotonic() + 60
        for i in range(count):
            while "AI worker" not in (folder / f"worker-{count}-{i}.log").read_text():
                if time.monotonic() > deadline:
                    raise RuntimeError("a worker did not start")
                time.sleep(0.1)
        yield
    finally:
        for process in started:
            stop(process)


async def create(http: httpx.AsyncClient, body: dict[str, Any]) -> tuple[str, list[str]]:
    answer = await http.post("/v1/matches", json=body)
    answer.raise_for_status()
    created = answer.json()
    return created["match"]["id"], [t["token"] for t in created["tokens"]]


async def turns_per_second(port: int, matches: int, seconds: float) -> float:
    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=30) as http:
        ids = [(await create(http, EXPERTS))[0] for _ in range(matches)]

        async def versions() -> int:
            views = [(await http.get(f"/v1/matches/{i}")).json() for i in ids]
            return sum(v["version"] for v in views)

        await asyncio.sleep(1.0)  # past the first claims
        before, started = await versions(), time.monotonic()
        await asyncio.sleep(seconds)
        after, ended = await versions(), time.monotonic()
    return (after - before) / (ended - started)


async def ai_replies(http: httpx.AsyncClient, count: int) -> list[float]:
    """Play seat 0 against an expert until ``count`` AI replies were timed: from the 200
    of the human's move to the AI's ``card_played`` arriving on a long poll (docs/api.md,
    "How AI moves reach you"; tests/hostile/test_ai_service.py times them with this too)."""
    replies: list[float] = []
    match_id, (token,) = await create(http, HUMAN_VS_EXPERT)
    after = 0
    while len(replies) < count:
        view = (await http.get(f"/v1/matches/{match_id}", headers=bearer(token))).json()
        if view["status"] == "finished":
            match_id, (token,) = await create(http, HUMAN_VS_EXPERT)
            after = 0
            continue
        if view["turn"] != 0:
            page = await http.get(
                f"/v1/matches/{match_id}/events",
                params={"after": after, "wait": 5},
                headers=bearer(token),
            )
            after = page.json()["last_seq"]
            continue
        move = view["legal_moves"][0]
        answer = await http.post(
            f"/v1/matches/{match_id}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=bearer(token),
        )
        answer.raise_for_status()
        moved = time.monotonic()
        if answer.json()["turn"] != 1 or answer.json()["status"] != "active":
            continue
        while True:
            page = await http.get(
                f"/v1/matches/{match_id}/events",
                params={"after": after, "wait": 10},
                headers=bearer(token),
            )
            body = page.json()
            after = body["last_seq"]
            if any(e["type"] == "card_played" and e["seat"] == 1 for e in body["events"]):
                replies.append(time.monotonic() - moved)
                break
    return replies


async def hint_loop(http: httpx.AsyncClient, stop: asyncio.Event) -> int:
    match_id, tokens = await create(http, {"seats": [{"kind": "human"}] * 2})
    view = (await http.get(f"/v1/matches/{match_id}", headers=bearer(tokens[0]))).json()
    token, asked = tokens[view["turn"]], 0
    while not stop.is_set():
        await http.get(
            f"/v1/matches/{match_id}/hint", params={"level": "expert"}, headers=bearer(token)
        )
        asked += 1
        await asyncio.sleep(0.1)
    return asked


async def hint_times(port: int, count: int, level: str) -> dict[str, float]:
    """``count`` hints asked one after another for the seat to move: each from the request
    to its 200, as its client sees it."""
    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=30) as http:
        match_id, tokens = await create(http, {"seats": [{"kind": "human"}] * 2})
        view = (await http.get(f"/v1/matches/{match_id}", headers=bearer(tokens[0]))).json()
        token = tokens[view["turn"]]
        times = []
        for _ in range(count):
            began = time.monotonic()
            answer = await http.get(
                f"/v1/matches/{match_id}/hint", params={"level": level}, headers=bearer(token)
            )
            answer.raise_for_status()
            times.append(time.monotonic() - began)
    return summary(times)


def summary(replies: list[float]) -> dict[str, float]:
    ordered = sorted(replies)
    return {
        "median_s": round(statistics.median(ordered), 3),
        "p99_s": round(percentile(ordered, 0.99), 3),
        "max_s": round(ordered[-1], 3),
    }


async def latency(port: int, replies: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=30) as http:
        quiet = await ai_replies(http, replies)
        for _ in range(30):
            await create(http, FOUR_EXPERTS)
        stop = asyncio.Event()
        loops = [asyncio.create_task(hint_loop(http, stop)) for _ in range(12)]
        flooded = await ai_replies(http, replies)
        stop.set()
        hints = sum(await asyncio.gather(*loops))
    return {"quiet": summary(quiet), "flood": summary(flooded), "flood_hints": hints}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="throughput window")
    parser.add_argument("--matches", type=int, default=8, help="AI-only matches for throughput")
    parser.add_argument("--replies", type=int, default=30, help="AI replies timed per run")
    parser.add_argument("--hints", type=int, default=50, help="hints timed each way")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"machine": platform.machine(), "cpus": _cpus()}
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        for count in (1, 2):
            with database() as env:
                env = {**env, "SCOPA_AI_WORKERS": "1"}
                with (
                    servers(1, {**env, "SCOPA_AI_IN_PROCESS": "off"}, folder) as started,
                    workers(count, env, folder),
                ):
                    rate = asyncio.run(turns_per_second(started[0][0], args.matches, args.seconds))
            result[f"turns_per_second_{count}_worker{'s' if count > 1 else ''}"] = round(rate, 1)
            print(f"{count} worker(s): {rate:.1f} AI turns/s", flush=True)
        hints: dict[str, Any] = {}
        with database() as env:
            env = {**env, "SCOPA_AI_WORKERS": "1"}
            with (
                servers(1, {**env, "SCOPA_AI_IN_PROCESS": "off"}, folder) as started,
                workers(1, env, folder),
            ):
                hints["by_worker"] = asyncio.run(hint_times(started[0][0], args.hints, "hard"))
        with database() as env, servers(1, {**env, "SCOPA_AI_WORKERS": "2"}, folder) as started:
            hints["in_process"] = asyncio.run(hint_times(started[0][0], args.hints, "hard"))
            result["ai_reply"] = asyncio.run(latency(started[0][0], args.replies))
        result["hard_hint"] = hints
        reply = result["ai_reply"]
        print(f"AI reply alone: {reply['quiet']}; under the flood: {reply['flood']}", flush=True)
        print(
            f"hard hint, asked of a worker: {hints['by_worker']}; "
            f"in the API process: {hints['in_process']}",
            flush=True,
        )
    print(json.dumps(result))
    return 0


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0))


if __name__ == "__main__":
    sys.exit(main())
