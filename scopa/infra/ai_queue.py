"""The pending AI turns, as a table any number of processes share (``ai_turns``).

A match's row is written in the transaction that stores the match (``SqlMatchStore``):
present while an AI seat is to play, gone otherwise, so no turn is ever lost or left
behind. A runner claims the most urgent row that is ready and not leased, in one
statement that skips rows another claimer holds (``FOR UPDATE SKIP LOCKED`` on
Postgres; SQLite has a single writer), and leases it for a while. The save of the move
clears the lease with the row; a runner that dies leaves the lease to lapse, and the turn
goes to another. Two runners deciding one turn (a lease that lapsed under a slow one)
still store one move: the save is at the version decided on.

Humans' matches come first, then by how long the turn has been ready. A match of AI
seats only is paced: after each of its moves the next is ready only ``ai_only_pace``
seconds later.

``ai_workers`` holds a heartbeat of each process playing AI turns, for ``/ready`` and
the metrics to tell when no process plays them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BindParameter, Double, String, Table, bindparam, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.domain.match import MatchState, ai_to_play
from scopa.infra.tables import AiTurnRow, AiWorkerRow

TURNS: Table = AiTurnRow.__table__  # type: ignore[assignment]
WORKERS: Table = AiWorkerRow.__table__  # type: ignore[assignment]

# A process not heard from for this long plays no more AI turns (it beats every 2 s).
WORKER_SILENCE_SECONDS = 10.0
# A process gone this long is forgotten.
WORKER_FORGET_SECONDS = 3600.0


def has_human(state: MatchState) -> bool:
    """Whether anybody but the AI sits at the match: its AI turns have a human waiting."""
    return any(seat.kind != "ai" for seat in state.seats)


def pending_turn(
    state: MatchState, now: float, ai_only_pace: float, *, created: bool = False
) -> dict[str, Any] | None:
    """The queue row of ``state`` just stored, or None when no AI is to play."""
    if ai_to_play(state) is None:
        return None
    human = has_human(state)
    # A match of AI seats only waits its pace after a move, not before its first.
    ready_at = now if human or created else now + ai_only_pace
    return {"human": human, "ready_at": ready_at, "lease_until": None, "leased_by": None}


async def requeue(conn: AsyncConnection, match_id: str, turn: dict[str, Any] | None) -> None:
    """In the transaction storing the match: its row as ``pending_turn`` gave it."""
    if turn is None:
        await conn.execute(delete(TURNS).where(TURNS.c.match_id == match_id))
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    upsert = dialect.insert(TURNS).values(match_id=match_id, **turn)
    await conn.execute(upsert.on_conflict_do_update(index_elements=["match_id"], set_=turn))


def claim_statement(*, human_only: bool) -> Any:
    """Lease the most urgent turn ready at ``:now`` that nobody holds to ``:by`` until
    ``:until`` (only of a humans' match: ``human_only``); RETURNING its match id. Built
    once with its parameters named, so that it can be compiled once
    (``SqlMatchStore.claim_ai_turn``)."""
    now: BindParameter[float] = bindparam("now", type_=Double())
    free = (TURNS.c.lease_until.is_(None)) | (TURNS.c.lease_until <= now)
    if human_only:
        free = free & TURNS.c.human
    chosen = (
        select(TURNS.c.match_id)
        .where(TURNS.c.ready_at <= now, free)
        .order_by(TURNS.c.human.desc(), TURNS.c.ready_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    return (
        update(TURNS)
        .where(TURNS.c.match_id == chosen)
        .values(
            lease_until=bindparam("until", type_=Double()),
            leased_by=bindparam("by", type_=String()),
        )
        .returning(TURNS.c.match_id)
    )


def renew_statement(match_id: str, now: float, lease_seconds: float, by: str) -> Any:
    """Extend ``by``'s lease on the turn, if it still holds it."""
    return (
        update(TURNS)
        .where(TURNS.c.match_id == match_id, TURNS.c.leased_by == by)
        .values(lease_until=now + lease_seconds)
    )


def backlog_statement(now: float) -> Any:
    return select(func.count(), func.min(TURNS.c.ready_at)).where(TURNS.c.ready_at <= now)


async def beat(conn: AsyncConnection, worker: str, capacity: int, now: float) -> None:
    """This process's heartbeat; the long gone are forgotten on the way."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    row = {"seen_at": now, "capacity": capacity}
    upsert = dialect.insert(WORKERS).values(id=worker, **row)
    await conn.execute(upsert.on_conflict_do_update(index_elements=["id"], set_=row))
    await conn.execute(delete(WORKERS).where(WORKERS.c.seen_at < now - WORKER_FORGET_SECONDS))


async def leave(conn: AsyncConnection, worker: str) -> None:
    await conn.execute(delete(WORKERS).where(WORKERS.c.id == worker))


def capacity_statement(now: float) -> Any:
    """The decisions the processes heard from lately can make at once."""
    live = WORKERS.c.seen_at >= now - WORKER_SILENCE_SECONDS
    return select(func.coalesce(func.sum(WORKERS.c.capacity), 0)).where(live)
