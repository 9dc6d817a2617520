"""The restore drill of docs/operations.md ("Backups and restore"), performed on the real
Postgres: matches played through the server (finished, rated, in progress, waiting), a
`pg_dump -Fc` of its database, `pg_restore` into a new database, and the server started
on that one serves every match as before (views, versions, events, records, the player
and its rating), every table the same row for row, and play goes on from there. Both
databases are dropped afterwards. pg_dump and pg_restore come with postgresql-client
(.ci/run installs it): in CI a missing one is a failure, never a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.support.databases import TABLES, run_aside
from tests.support.server_process import ROOT, start_server

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("pg_dump") is None and not os.environ.get("CI"),
        reason="pg_dump is not installed (postgresql-client)",
    ),
]

# Liveness bounds only: an AI reply, a match of AI seats to a target of 3.
AI_REPLY_SECONDS = 30.0
AI_MATCH_SECONDS = 120.0
HUMANS = {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 3, "first_dealer": 1}
AGAINST_AI = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}]}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def pg_args(url: str) -> list[str]:
    """The connection options of the client programs for a SQLAlchemy URL."""
    parsed = make_url(url)
    return ["-h", str(parsed.host), "-p", str(parsed.port or 5432), "-U", str(parsed.username)]


def migrate(url: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "scopa.cli", "migrate"],
        cwd=ROOT,
        env={**os.environ, "SCOPA_DATABASE_URL": url},
        check=True,
        capture_output=True,
    )


def create(client: httpx.Client, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    answer = client.post("/v1/matches", json=body, headers=bearer(token) if token else {})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def play(client: httpx.Client, match_id: str, token: str, moves: int) -> dict[str, Any]:
    """``moves`` of the token's seat against the AI (the first legal one each time), or
    up to the end, waiting for the AI's replies; the seat's view once it is its turn
    again (or the match is over)."""
    deadline = time.monotonic() + AI_MATCH_SECONDS
    while True:
        view = client.get(f"/v1/matches/{match_id}", headers=bearer(token)).json()
        if view["status"] == "finished":
            return dict(view)
        if view["turn"] == view["you"]:
            if moves == 0:
                return dict(view)
            move(client, match_id, token)
            moves -= 1
            continue
        assert time.monotonic() < deadline, view
        client.get(
            f"/v1/matches/{match_id}/events",
            params={"after": view["last_seq"], "wait": 5},
            headers=bearer(token),
        )


def move(client: httpx.Client, match_id: str, token: str) -> dict[str, Any]:
    """The first legal move of the token's seat, on its turn; the view after it."""
    view = client.get(f"/v1/matches/{match_id}", headers=bearer(token)).json()
    assert view["turn"] == view["you"], view
    first = view["legal_moves"][0]
    played = client.post(
        f"/v1/matches/{match_id}/moves",
        json={"card": first["card"], "capture": first["capture"]},
        headers={**bearer(token), "If-Match": f'"{view["version"]}"'},
    )
    assert played.status_code == 200, played.text
    return dict(played.json())


def finished_by_the_ai(client: httpx.Client, match_id: str) -> None:
    deadline = time.monotonic() + AI_MATCH_SECONDS
    while (view := client.get(f"/v1/matches/{match_id}").json())["status"] != "finished":
        assert time.monotonic() < deadline, view
        client.get(f"/v1/matches/{match_id}/events", params={"after": view["last_seq"], "wait": 5})


def every_event(client: httpx.Client, match_id: str, token: str | None) -> list[Any]:
    events: list[Any] = []
    while True:
        page = client.get(
            f"/v1/matches/{match_id}/events",
            params={"after": events[-1]["seq"] if events else 0},
            headers=bearer(token) if token else {},
        ).json()
        events += page["events"]
        if not page["events"] or events[-1]["seq"] >= page["last_seq"]:
            return events


def answer(client: httpx.Client, path: str, token: str | None = None) -> Any:
    got = client.get(path, headers=bearer(token) if token else {})
    return got.status_code, got.headers.get("etag"), got.json()


def everything(base_url: str, seats: dict[str, str | None], handle: str) -> dict[str, Any]:
    """All a client can read of the matches (by id, with a seat's token or none) and of
    the player: what a restore must give back unchanged."""
    seen: dict[str, Any] = {}
    with httpx.Client(base_url=base_url, timeout=10) as client:
        for match_id, token in seats.items():
            for who in {None, token}:
                seen[f"{match_id} {who}"] = {
                    "view": answer(client, f"/v1/matches/{match_id}", who),
                    "events": every_event(client, match_id, who),
                }
            seen[match_id] = {
                "record": answer(client, f"/v1/matches/{match_id}/record"),
                "scores": answer(client, f"/v1/matches/{match_id}/scores"),
            }
        seen["player"] = answer(client, f"/v1/players/{handle}")
        seen["ratings"] = answer(client, f"/v1/players/{handle}/ratings?format=2p-11")
        seen["lobby"] = answer(client, "/v1/matches?limit=100")
    return seen


async def table_digests(url: str) -> dict[str, tuple[int, str | None]]:
    """Every table's row count and a digest of its rows, in a fixed order."""
    parsed = make_url(url)
    conn = await asyncpg.connect(
        f"postgresql://{parsed.username}@{parsed.host}:{parsed.port or 5432}/{parsed.database}"
    )
    try:
        digests = {}
        for table in TABLES:
            row = await conn.fetchrow(
                f"SELECT count(*), md5(string_agg(t::text, '|' ORDER BY t::text)) FROM {table} t"
            )
            digests[table] = (row[0], row[1])
        return digests
    finally:
        await conn.close()


def test_a_backup_restored_into_a_new_database_holds_every_match(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> None:
    source = new_postgres_database()
    migrate(source)
    server = start_server(source, tmp_path)
    try:
        with httpx.Client(base_url=server.base_url, timeout=40) as client:
            registered = client.post("/v1/players", json={"handle": "ada", "name": "Ada"})
            assert registered.status_code == 201, registered.text
            ada = registered.json()["token"]["token"]
            # Rated, finished by resigning: the player's rating moved.
            rated = create(client, {**AGAINST_AI, "rated": True}, ada)
            rated_id = rated["match"]["id"]
            resigned = client.post(f"/v1/matches/{rated_id}/resign", headers=bearer(ada))
            assert resigned.status_code == 200, resigned.text
            # Played to the end against the AI, and by the AI alone.
            short = {**AGAINST_AI, "seed": 5, "rules": {"target": 1}}
            finished = create(client, short)
            finished_token = finished["tokens"][0]["token"]
            assert play(client, finished["match"]["id"], finished_token, 10**6)["winner"] in (0, 1)
            ai_only = create(
                client,
                {"seats": [{"kind": "ai", "level": "easy"}] * 2, "seed": 9, "rules": {"target": 3}},
            )
            finished_by_the_ai(client, ai_only["match"]["id"])
            # In progress: between two people, and against the AI.
            humans = create(client, HUMANS)
            humans_id = humans["match"]["id"]
            tokens = {t["seat"]: t["token"] for t in humans["tokens"]}
            for _ in range(3):
                for seat in (0, 1):
                    move(client, humans_id, tokens[seat])
            against = create(client, {**AGAINST_AI, "seed": 7})
            against_token = against["tokens"][0]["token"]
            assert play(client, against["match"]["id"], against_token, 4)["status"] == "active"
            # And one waiting for its second player.
            waiting = create(client, {"seats": [{"kind": "human"}, {"kind": "open"}]})
        seats: dict[str, str | None] = {
            rated_id: ada,
            finished["match"]["id"]: finished_token,
            ai_only["match"]["id"]: None,
            humans_id: tokens[0],
            against["match"]["id"]: against_token,
            waiting["match"]["id"]: waiting["tokens"][0]["token"],
        }
        before = everything(server.base_url, seats, "ada")
    finally:
        server.assert_stops_cleanly()
    statuses = [before[f"{m} None"]["view"][2]["status"] for m in seats]
    assert statuses == ["finished"] * 3 + ["active"] * 2 + ["waiting"]
    assert [before[m]["record"][0] for m in seats] == [200] * 3 + [409] * 3
    assert before["player"][2]["ratings"][0]["games"] == 1

    # The drill, as docs/operations.md gives it: a custom-format dump, a new database, a
    # restore into it without the old owner's name.
    backup = tmp_path / "scopa.dump"
    source_name = make_url(source).database
    subprocess.run(
        ["pg_dump", "-Fc", *pg_args(source), "-d", str(source_name), "-f", str(backup)],
        check=True,
        capture_output=True,
    )
    restored = new_postgres_database()
    subprocess.run(
        [
            "pg_restore",
            "--no-owner",
            "--exit-on-error",
            *pg_args(restored),
            "-d",
            str(make_url(restored).database),
            str(backup),
        ],
        check=True,
        capture_output=True,
    )
    digests = run_aside(table_digests(source))
    assert run_aside(table_digests(restored)) == digests

    server = start_server(restored, tmp_path)
    try:
        assert everything(server.base_url, seats, "ada") == before
        # Play goes on where it stopped, the seat tokens still good.
        with httpx.Client(base_url=server.base_url, timeout=40) as client:
            version = before[f"{humans_id} {tokens[0]}"]["view"][2]["version"]
            assert move(client, humans_id, tokens[0])["version"] == version + 1
            assert move(client, humans_id, tokens[1])["version"] == version + 2
    finally:
        server.assert_stops_cleanly()
    # On the restored database alone: the two are apart.
    assert run_aside(table_digests(source)) == digests
    assert run_aside(table_digests(restored)) != digests
