"""With SCOPA_AI_IN_PROCESS=off the API runs no AI at all (it has no AI pool): a ``scopa
worker`` computes each review once and decides each hint, and the API answers with what
the worker gave; with no worker the API answers 503 ai-unavailable in bounded time rather
than waiting forever, and a hint whose client went away is forgotten. Real processes, on
SQLite and Postgres."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from sqlalchemy import Select, Table, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.infra.db import make_engine
from scopa.infra.hints import HINTS
from scopa.infra.reviews import JOBS, REVIEWS
from scopa.service.asked import UNATTENDED_SECONDS
from tests.api.support import bearer, create, finish, problem_type, tokens, view
from tests.support.eventually import eventually
from tests.support.server_process import Server, running_in_group, start_server, start_worker

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

API_ENV = {"SCOPA_AI_IN_PROCESS": "off"}
TWO_HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"target": 1}, "seed": 5}
# Liveness bound for reviewing one seat of a one-deal match on a loaded machine.
ANSWER_SECONDS = 120.0


async def first(database_url: str, query: Select[Any]) -> Any:
    """The first column of the query's first row, on a connection of its own."""
    engine = make_engine(database_url)
    try:
        async with engine.connect() as conn:
            return (await conn.execute(query)).scalars().first()
    finally:
        await engine.dispose()


def count(table: Table) -> Select[Any]:
    return select(func.count()).select_from(table)


async def rows(database_url: str) -> tuple[int, int]:
    """Reviews kept, reviews asked for and not yet kept."""
    return await first(database_url, count(REVIEWS)), await first(database_url, count(JOBS))


@asynccontextmanager
async def processes() -> AsyncIterator[list[Server]]:
    """The servers and workers a test starts, each stopped at its end."""
    started: list[Server] = []
    try:
        yield started
    finally:
        await asyncio.gather(*(asyncio.to_thread(s.stop) for s in started))


async def test_reviews_go_to_the_worker_and_none_without_one(
    database_url: str, tmp_path: Path
) -> None:
    async with processes() as started:
        api = await asyncio.to_thread(start_server, database_url, tmp_path, API_ENV)
        started.append(api)
        async with httpx.AsyncClient(base_url=api.base_url, timeout=ANSWER_SECONDS) as client:
            created = await create(client, TWO_HUMANS)
            match_id = created["match"]["id"]
            await finish(client, match_id, tokens(created))
            url = f"/v1/matches/{match_id}/review"

            began = time.monotonic()
            alone = await client.get(url, params={"seat": 1})
            waited = time.monotonic() - began
            assert alone.status_code == 503, alone.text
            assert problem_type(alone) == "ai-unavailable"
            assert int(alone.headers["Retry-After"]) > 0
            assert UNATTENDED_SECONDS <= waited < UNATTENDED_SECONDS + 10
            # The API computed nothing: the review is asked for, for a worker to come.
            assert await rows(database_url) == (0, 1)

            worker = await asyncio.to_thread(start_worker, database_url, tmp_path)
            started.append(worker)
            answers = await asyncio.gather(
                *(client.get(url, params={"seat": 1}) for _ in range(3)),
                client.get(url, params={"seat": 0}),
            )
            assert [a.status_code for a in answers] == [200] * 4, [a.text for a in answers]
            assert len({a.text for a in answers[:3]}) == 1
            body = answers[0].json()
            assert body["seat"] == 1
            assert body["moves"], body  # a deal's plays, judged by the worker's expert
            assert answers[3].json()["seat"] == 0
            assert await rows(database_url) == (2, 0)  # each kept once, nothing left asked
            again = await client.get(url, params={"seat": 1})
            assert again.json() == body


async def holder(engine: AsyncEngine) -> str | None:
    """The process holding a review's lease, if one does: read on a pooled connection, as
    the review may last less than a new engine takes to connect on a loaded machine."""
    held = select(JOBS.c.leased_by).where(JOBS.c.lease_until > time.time())
    async with engine.connect() as conn:
        return cast("str | None", (await conn.execute(held)).scalars().first())


async def test_a_worker_killed_mid_review_leaves_it_to_another(
    database_url: str, tmp_path: Path
) -> None:
    watch = make_engine(database_url)
    try:
        async with processes() as started:
            api = await asyncio.to_thread(start_server, database_url, tmp_path, API_ENV)
            started.append(api)
            workers = await asyncio.gather(
                *(asyncio.to_thread(start_worker, database_url, tmp_path) for _ in range(2))
            )
            started.extend(workers)
            async with httpx.AsyncClient(base_url=api.base_url, timeout=ANSWER_SECONDS) as client:
                # A few deals: the review lasts long enough to be cut in the middle (to 4, the
                # match was one deal, and a review of it could end between two looks).
                created = await create(client, {**TWO_HUMANS, "rules": {"target": 11}})
                match_id = created["match"]["id"]
                await finish(client, match_id, tokens(created))
                url = f"/v1/matches/{match_id}/review"
                asking = asyncio.ensure_future(client.get(url, params={"seat": 0}))
                deadline = time.monotonic() + ANSWER_SECONDS

                async def leased() -> str | bool | None:
                    return asking.done() or await holder(watch)

                leased_by = await eventually(leased, seconds=ANSWER_SECONDS)
                assert isinstance(leased_by, str), asking.result().text
                pid = int(leased_by.split(":")[-2])
                (victim,) = [w for w in workers if w.process.pid == pid]
                victim.kill()
                answer = await asking
                # Within the request's own bound, or by a retry once the other has kept it.
                while answer.status_code == 503 and time.monotonic() < deadline:
                    assert problem_type(answer) == "ai-unavailable"
                    answer = await client.get(url, params={"seat": 0})
                assert answer.status_code == 200, answer.text
                assert answer.json()["moves"]
                assert await rows(database_url) == (1, 0)
                assert await holder(watch) is None
    finally:
        await watch.dispose()


async def hints_asked(database_url: str) -> int:
    return cast(int, await first(database_url, count(HINTS)))


async def test_hints_go_to_the_worker_and_none_without_one(
    database_url: str, tmp_path: Path
) -> None:
    async with processes() as started:
        api = await asyncio.to_thread(start_server, database_url, tmp_path, API_ENV)
        started.append(api)
        # No AI pool: the API process has not a single child process.
        assert running_in_group(api.process.pid) == [api.process.pid]
        async with httpx.AsyncClient(base_url=api.base_url, timeout=ANSWER_SECONDS) as client:
            created = await create(client, TWO_HUMANS)
            match_id = created["match"]["id"]
            seats = tokens(created)
            turn = (await view(client, match_id, seats[0]))["turn"]
            url = f"/v1/matches/{match_id}/hint"
            ask: dict[str, Any] = {"params": {"level": "hard"}, "headers": bearer(seats[turn])}

            began = time.monotonic()
            alone = await client.get(url, **ask)
            assert alone.status_code == 503, alone.text
            assert problem_type(alone) == "ai-unavailable"
            assert UNATTENDED_SECONDS <= time.monotonic() - began < UNATTENDED_SECONDS + 10
            assert await hints_asked(database_url) == 0  # given up: nobody is to decide it

            # A client that goes away: its hint is forgotten at once, long before the API
            # would have given up on it, so no worker that comes later decides it.
            left = time.monotonic()
            with pytest.raises(httpx.ReadTimeout):
                await client.get(url, timeout=0.5, **ask)
            while await hints_asked(database_url):
                assert time.monotonic() - left < UNATTENDED_SECONDS, "the hint stayed asked"
                await asyncio.sleep(0.05)

            started.append(await asyncio.to_thread(start_worker, database_url, tmp_path))
            hint = await client.get(url, **ask)
            assert hint.status_code == 200, hint.text
            legal = (await view(client, match_id, seats[turn]))["legal_moves"]
            assert {"card": hint.json()["card"], "capture": hint.json()["capture"]} in [
                {"card": m["card"], "capture": m["capture"]} for m in legal
            ]
            assert await hints_asked(database_url) == 0
