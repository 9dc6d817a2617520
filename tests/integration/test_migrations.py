"""The migrations build the tables the code expects, on both databases, even when
several processes run them at once, and bring matches stored by older code along."""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

import asyncpg
import msgspec
import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from scopa.domain.match import MatchState, Seat, SeatKind, ai_to_play, legal_moves, new_match, play
from scopa.domain.rules import make_rules
from scopa.infra.db import make_engine
from scopa.infra.migrate import LOCK_KEY, alembic_config, migrate
from scopa.infra.notify import LocalEventBus
from scopa.infra.stores import sql_stores
from scopa.service.idempotency import Claim
from scopa.service.ids import token_hash
from scopa.service.ports import HandleTaken, IdempotencyConflict
from scopa.wiring import services_over
from tests.fakes import FirstMoveAi
from tests.support.audit import audit
from tests.support.eventually import eventually

ROOT = Path(__file__).resolve().parents[2]
MIGRATE = "import asyncio, sys, scopa.infra.migrate as m; asyncio.run(m.migrate(sys.argv[1]))"

TABLES = {
    "matches",
    "seats",
    "events",
    "idempotency",
    "reviews",
    "review_jobs",
    "hint_jobs",
    "ai_turns",
    "ai_workers",
    "limit_counts",
    "stream_leases",
    "players",
    "player_tokens",
    "match_players",
    "ratings",
    "rated_matches",
    "challenges",
    "inbox",
    "alembic_version",
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    make: Callable[[], str] = request.getfixturevalue("new_postgres_database")
    return make()


async def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_migrating_creates_the_tables_once(empty_url: str) -> None:
    await migrate(empty_url)
    await migrate(empty_url)

    assert await tables(empty_url) == TABLES


async def test_migrations_started_together_all_succeed(empty_url: str) -> None:
    await asyncio.gather(*(migrate(empty_url) for _ in range(4)))

    assert await tables(empty_url) == TABLES


@pytest.mark.slow
async def test_a_migration_waits_out_a_long_sqlite_write_lock(tmp_path: Path) -> None:
    # Migrations queued behind others on a loaded machine wait longer than a request's
    # 5 s: one that gave up at 5 s failed a start-up (CI, four migrations at once).
    path = tmp_path / "held.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("BEGIN IMMEDIATE")
    held = 5.5
    release = asyncio.get_running_loop().call_later(held, holder.rollback)
    started = time.monotonic()
    try:
        await migrate(f"sqlite+aiosqlite:///{path}")
    finally:
        release.cancel()
        holder.close()

    assert time.monotonic() - started >= held
    assert await tables(f"sqlite+aiosqlite:///{path}") == TABLES


@pytest.mark.postgres
async def test_processes_take_turns_at_migrating(
    new_postgres_database: Callable[[], str],
) -> None:
    url = new_postgres_database()
    dsn = make_url(url).set(drivername="postgresql").render_as_string(False)
    holder = await asyncpg.connect(dsn)
    try:
        # Hold the migration lock so that both processes are surely there at once.
        await holder.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
        processes = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c", MIGRATE, url, cwd=ROOT, stderr=asyncio.subprocess.PIPE
            )
            for _ in range(2)
        ]
        # Both processes queued for the lock.
        both_waiting = (
            "SELECT count(*) = 2 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        await eventually(lambda: holder.fetchval(both_waiting), seconds=30)
        await holder.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
        outcomes = [await p.communicate() for p in processes]
    finally:
        await holder.close()

    assert [p.returncode for p in processes] == [0, 0], outcomes
    assert await tables(url) == TABLES


async def test_the_tables_match_the_models(empty_url: str) -> None:
    await migrate(empty_url)
    # Alembic's own commands run their event loop: keep them off this one.
    await asyncio.to_thread(command.check, alembic_config(empty_url))


async def test_the_migrations_go_down_and_up_again(empty_url: str) -> None:
    await migrate(empty_url)
    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "base")
    assert await tables(empty_url) == {"alembic_version"}

    await migrate(empty_url)
    assert await tables(empty_url) == TABLES


# What 0003's code added to the stored values: a row written before has none of it.
ADDED = {"state": ("end_reason", "timeouts"), "rules": ("turn_seconds", "on_timeout")}
ADDED_TO_EVENTS = ("auto", "reason")


def stored_before(value: msgspec.Struct) -> bytes:
    """``value`` as the code of revision 0002 stored it: msgpack without the new fields."""
    raw = msgspec.msgpack.decode(msgspec.msgpack.encode(value))
    if isinstance(value, MatchState):
        for name in ADDED["state"]:
            del raw[name]
        for name in ADDED["rules"]:
            del raw["rules"][name]
    else:
        for name in ADDED_TO_EVENTS:
            raw.pop(name, None)
    return msgspec.msgpack.encode(raw)


async def insert_old_match(
    url: str, match_id: str, kinds: tuple[SeatKind, ...], moves: int, at: float
) -> dict[int, str]:
    """A match as revision 0002's store wrote it, after ``moves`` first legal moves; its
    seat tokens."""
    seats = [Seat(k, "easy" if k == "ai" else None) for k in kinds]
    # Dealer 0: seat 1 leads.
    initial, events = new_match(make_rules(target=1), seats, len(match_id), first_dealer=0)
    state = initial
    for _ in range(moves):
        move = legal_moves(state)[0]
        state, more = play(state, state.turn or 0, move)
        events += more
    tokens = {i: f"token-{match_id}-{i}" for i, kind in enumerate(kinds) if kind == "human"}
    engine = make_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO matches (id, version, status, state, initial, created_at,"
                    " updated_at, has_open_seat, ai_turn) VALUES (:id, :version, :status,"
                    " :state, :initial, :created_at, :updated_at, :has_open_seat, :ai_turn)"
                ),
                {
                    "id": match_id,
                    "version": state.version,
                    "status": state.status,
                    "state": stored_before(state),
                    "initial": stored_before(initial),
                    "created_at": at,
                    "updated_at": at + 10,
                    "has_open_seat": any(s.kind == "open" for s in state.seats),
                    "ai_turn": ai_to_play(state) is not None,
                },
            )
            for seat, token in tokens.items():
                await conn.execute(
                    text("INSERT INTO seats VALUES (:id, :seat, :hash)"),
                    {"id": match_id, "seat": seat, "hash": token_hash(token)},
                )
            for event in events:
                await conn.execute(
                    text("INSERT INTO events VALUES (:id, :seq, :payload)"),
                    {"id": match_id, "seq": event.seq, "payload": stored_before(event)},
                )
    finally:
        await engine.dispose()
    return tokens


async def due_ats(url: str) -> dict[str, float | None]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT id, due_at FROM matches"))).all()
    finally:
        await engine.dispose()
    return {row.id: row.due_at for row in rows}


async def test_matches_stored_before_0003_upgrade_and_play_to_the_end(empty_url: str) -> None:
    at = time.time() - 60
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0002")
    # Match ids are 22 url-safe characters.
    waiting, humans, ai_next = (f"{name:_<22}" for name in ("waiting", "humans", "ai-next"))
    old = {
        waiting: await insert_old_match(empty_url, waiting, ("human", "open"), 0, at),
        humans: await insert_old_match(empty_url, humans, ("human", "human"), 3, at),
        ai_next: await insert_old_match(empty_url, ai_next, ("human", "ai"), 0, at),
    }

    await migrate(empty_url)

    # Waiting: from its creation; a human's turn: from its last change; an AI's: none.
    assert await due_ats(empty_url) == {
        waiting: at + 3600,
        humans: at + 10 + 604800,
        ai_next: None,
    }
    engine = make_engine(empty_url)
    try:
        store = sql_stores(engine)
        service = services_over(store, LocalEventBus(), ai=FirstMoveAi())
        joined = await service.seating.join(waiting, 1, None, "fp")
        old[waiting][1] = joined.token
        for match_id, tokens in old.items():
            while True:
                await service.ai_work.advance_ai(match_id)
                record = await service.callers.load(match_id)
                state = record.state
                if state.status == "finished":
                    break
                caller = await service.callers.caller(
                    match_id, tokens[state.turn or 0], required=True
                )
                move = legal_moves(state)[0]
                await service.play.play(caller, move.card, move.capture, None, None, "fp")
            assert (state.end_reason, state.timeouts) == ("score", ())
            assert state.rules.turn_seconds is None
            assert record.due_at is None
    finally:
        await engine.dispose()
    checked = await audit(empty_url, old)
    assert checked.problems == []
    assert (checked.matches, checked.finished) == (3, 3)


# Stored in the clear by revision 0002: two creates (one key too short for a create now),
# a join, a move and a claim still running. The deleted answer is long, so that its token
# is on a page that deleting frees, where it would stay unless overwritten.
OLD_ROWS = [
    ("create", "6f1d2c1e-create-once-kept", "fp-create", b'{"tokens":[{"token":"%s"}]}'),
    ("create", "short-key", "fp-short", b'{"pad":"%s","tokens":[{"token":"%%s"}]}' % (b"-" * 6000)),
    ("join:m:1", "6f1d2c1e-join-once-kept", "fp-join", b'{"seat":1,"token":"%s"}'),
    ("a" * 64, "m1", "fp-move", b'{"version":1}'),
    ("create", "6f1d2c1e-still-running", "fp-running", None),
]


async def test_the_sealing_migration_leaves_no_plaintext_and_keeps_the_answers(
    empty_url: str,
) -> None:
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0002")
    tokens = [secrets.token_urlsafe(32) for _ in OLD_ROWS]
    engine = make_engine(empty_url)
    try:
        async with engine.begin() as conn:
            for (scope, key, fingerprint, body), token in zip(OLD_ROWS, tokens, strict=True):
                await conn.execute(
                    text(
                        "INSERT INTO idempotency (scope, key, fingerprint, body, created_at)"
                        " VALUES (:scope, :key, :fingerprint, :body, :now)"
                    ),
                    {
                        "scope": scope,
                        "key": key,
                        "fingerprint": fingerprint,
                        "body": body and body.replace(b"%s", token.encode()),
                        "now": time.time(),
                    },
                )
    finally:
        await engine.dispose()

    # As far as 0010: 0012 drops the answers of create and join, which reached anyone.
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0010")

    engine = make_engine(empty_url)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(text("SELECT * FROM idempotency"))).all()
        store = sql_stores(engine)
        replays = {}
        for (scope, key, fingerprint, body), token in zip(OLD_ROWS, tokens, strict=True):
            claim = Claim(scope, key, fingerprint)
            if body is None:
                with pytest.raises(IdempotencyConflict):
                    await store.answers.begin_idempotent(claim.stored)
                continue
            stored = await store.answers.begin_idempotent(claim.stored)
            if stored is not None:
                assert stored.fingerprint == claim.stored.fingerprint
                replays[key] = claim.open(stored.body) == body.replace(b"%s", token.encode())
    finally:
        await engine.dispose()

    assert len(rows) == len(OLD_ROWS) - 1
    # The short create key was deleted: claiming it now is a fresh claim.
    assert replays == {
        "6f1d2c1e-create-once-kept": True,
        "6f1d2c1e-join-once-kept": True,
        "m1": True,
    }
    keys = [key for _, key, _, _ in OLD_ROWS]
    cells = [cell for row in rows for cell in row]
    assert not [key for key in keys if key in cells]
    for secret in [*tokens, *keys[:3], keys[4]]:
        for cell in cells:
            assert secret.encode() not in (cell if isinstance(cell, bytes) else str(cell).encode())
    if empty_url.startswith("sqlite"):
        # Nor in the file's free pages.
        path = Path(make_url(empty_url).database or "")
        stored_bytes = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
        assert [t for t in tokens if t.encode() in stored_bytes] == []


async def test_ai_turns_pending_before_0005_are_queued_humans_first(empty_url: str) -> None:
    at = time.time() - 60
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0002")
    bots, mixed, humans = (f"{name:_<22}" for name in ("bots", "mixed", "humans"))
    await insert_old_match(empty_url, bots, ("ai", "ai"), 0, at)
    await insert_old_match(empty_url, mixed, ("human", "ai"), 0, at + 1)
    await insert_old_match(empty_url, humans, ("human", "human"), 0, at)

    await migrate(empty_url)

    engine = make_engine(empty_url)
    try:
        store = sql_stores(engine)
        claimed = [await store.ai_turns.claim_ai_turn(3.0) for _ in range(3)]
        # Seat 1 leads: the mixed match waits on its AI, and comes first though younger.
        assert claimed == [mixed, bots, None]
    finally:
        await engine.dispose()


async def test_0011_refolds_handle_keys_and_keeps_players_that_now_read_alike(
    empty_url: str,
) -> None:
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0010")
    # As 0010's code stored them: lower case, 0 as o, 1 and i as l, - as _.
    old = {"s4muel": "s4muel", "samuel": "samuel", "5amuel": "5amuel", "Sarnuel": "sarnuel",
           "bob_1": "bob_l", "_ada-": "_ada_"}  # fmt: skip
    engine = make_engine(empty_url)
    try:
        async with engine.begin() as conn:
            for at, (handle, key) in enumerate(old.items()):
                await conn.execute(
                    text(
                        "INSERT INTO players (handle, handle_key, kind, origin, joined_at)"
                        " VALUES (:handle, :key, 'human', 'o', :at)"
                    ),
                    {"handle": handle, "key": key, "at": float(at)},
                )
    finally:
        await engine.dispose()

    await migrate(empty_url)

    engine = make_engine(empty_url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT handle, handle_key FROM players"))
            keys: dict[str, str] = {str(row[0]): str(row[1]) for row in rows}
        # samuel's key did not change: it holds it, though s4muel registered first; the
        # others reading as samuel keep their old keys. The rest take the new fold.
        assert keys == {"s4muel": "s4muel", "samuel": "samuel", "5amuel": "5amuel",
                        "Sarnuel": "sarnuel", "bob_1": "bobl", "_ada-": "ada"}  # fmt: skip
        players = sql_stores(engine).players
        # Each keeps its own page; a handle no one registered finds the key's holder.
        for handle in old:
            found = await players.player(handle)
            assert found is not None
            assert found.handle == handle
        found = await players.player("SAMU3L")
        assert found is not None
        assert found.handle == "samuel"
        service = services_over(sql_stores(engine), LocalEventBus(), ai=FirstMoveAi())
        for taken in ("s4rnuel", "b0b-l", "ADA"):
            with pytest.raises(HandleTaken):
                await service.accounts.register(taken, None, "human", None, "c", None, "f")
        await service.accounts.register("bobby", None, "human", None, "c", None, "f")
    finally:
        await engine.dispose()

    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "0010")
    engine = make_engine(empty_url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT handle, handle_key FROM players"))
            assert dict(rows.all()) == {**old, "bobby": "bobby"}
    finally:
        await engine.dispose()


async def test_answers_kept_for_anyone_are_deleted_and_the_seats_own_are_kept(
    empty_url: str,
) -> None:
    """0012: a create's, a join's or a registration's answer was anyone's with the key;
    now no request reaches it, so it goes. A move's and a rematch's were their seat's."""
    await asyncio.to_thread(command.upgrade, alembic_config(empty_url), "0011")
    scopes = ["create", "register", "join:m1:1", "rematch:h1", token_hash("seat")]
    engine = make_engine(empty_url)
    try:
        async with engine.begin() as conn:
            for scope in scopes:
                await conn.execute(
                    text(
                        "INSERT INTO idempotency (scope, key, fingerprint, body, created_at)"
                        " VALUES (:scope, 'k', 'fp', :body, :now)"
                    ),
                    {"scope": scope, "body": b"sealed", "now": time.time()},
                )
        await migrate(empty_url)
        async with engine.connect() as conn:
            kept = (await conn.execute(text("SELECT scope FROM idempotency"))).scalars().all()
    finally:
        await engine.dispose()
    assert sorted(kept) == sorted(["rematch:h1", token_hash("seat")])
