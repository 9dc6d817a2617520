"""The pending AI turns, as a table any number of processes share (``ai_turns``).

A match's row is written in the transaction that stores the match (``infra.unit_of_work``):
present while an AI seat is to play, gone otherwise, so no turn is ever lost or left
behind. A runner claims the most urgent row that is ready and not leased
(``infra.job_queue``). The save of the move clears the lease with the row; a runner that
dies leaves the lease to lapse, and the turn goes to another. Two runners deciding one
turn (a lease that lapsed under a slow one) still store one move: the change is stored at
the version decided on.

Humans' matches come first, then by how long the turn has been ready. A match of AI
seats only is paced: after each of its moves the next is ready only ``ai_only_pace``
seconds later.

``ai_workers`` holds a heartbeat of each process playing AI turns, for ``/ready`` and
the metrics to tell when no process plays them.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from scopa.domain.match import MatchState, ai_to_play
from scopa.infra.db import write_transaction
from scopa.infra.guard import reaching_database
from scopa.infra.job_queue import NOW, JobQueue
from scopa.infra.sql_store import SqlStore, merging_insert
from scopa.infra.statements import pg_compiled
from scopa.infra.tables import AiTurnRow, AiWorkerRow
from scopa.service.ports import AiBacklog

TURNS: Table = AiTurnRow.__table__  # type: ignore[assignment]
WORKERS: Table = AiWorkerRow.__table__  # type: ignore[assignment]
QUEUE = JobQueue(TURNS, ("match_id",), (TURNS.c.human.desc(), TURNS.c.ready_at))

# A process not heard from for this long plays no more AI turns (it beats every 2 s).
WORKER_SILENCE_SECONDS = 10.0
# A process gone this long is forgotten.
WORKER_FORGET_SECONDS = 3600.0

# A runner claims four times a second and after every change it hears of, any process's:
# built once, and on Postgres compiled once and sent as one statement (atomic on its own,
# so without BEGIN and COMMIT) like the move path's. Each was some 3 ms of CPU through
# SQLAlchemy and a transaction, more than a whole move costs.
_READY = TURNS.c.ready_at <= NOW
_CLAIMS = {False: QUEUE.claim(_READY), True: QUEUE.claim(_READY, TURNS.c.human)}
_PG_CLAIMS = {human_only: pg_compiled(claim) for human_only, claim in _CLAIMS.items()}


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
        await conn.execute(QUEUE.drop(match_id))
        return
    postgres = conn.dialect.name == "postgresql"
    upsert = merging_insert(TURNS, postgres=postgres).values(match_id=match_id, **turn)
    await conn.execute(upsert.on_conflict_do_update(index_elements=["match_id"], set_=turn))


class SqlAiTurns(SqlStore):
    """The AI turns to play and the processes that play them."""

    @reaching_database
    async def claim_ai_turn(
        self, lease_seconds: float, by: str = "", human_only: bool = False
    ) -> str | None:
        """The match of the most urgent AI turn (of a match with a human seat only:
        ``human_only``), leased to ``by`` for ``lease_seconds``; None when no turn is
        ready."""
        now = self.db.clock()
        values = {"now": now, "until": now + lease_seconds, "by": by}
        if self.db.postgres:
            query, names, defaults = _PG_CLAIMS[human_only]
            params = {**defaults, **values}
            claimed: str | None = await self.db.pg(
                "fetchval", query, *(params[n] for n in names), read=False
            )
            return claimed
        row = await self.db.write_row(_CLAIMS[human_only], values)
        return None if row is None else str(row.match_id)

    @reaching_database
    async def renew_ai_turn(self, match_id: str, lease_seconds: float, by: str) -> None:
        await self.db.write(QUEUE.renew(match_id, self.db.clock() + lease_seconds, by))

    @reaching_database
    async def ai_backlog(self) -> AiBacklog:
        now = self.db.clock()
        backlog = select(func.count(), func.min(TURNS.c.ready_at)).where(TURNS.c.ready_at <= now)
        counted = (await self.db.read(backlog))[0]
        return AiBacklog(int(counted[0]), counted[1])

    @reaching_database
    async def beat(self, worker: str, capacity: int) -> None:
        """This process's heartbeat; the long gone are forgotten on the way."""
        now = self.db.clock()
        row = {"seen_at": now, "capacity": capacity}
        upsert = self.db.insert(WORKERS).values(id=worker, **row)
        gone = delete(WORKERS).where(WORKERS.c.seen_at < now - WORKER_FORGET_SECONDS)
        async with write_transaction(self.db.engine) as conn:
            await conn.execute(upsert.on_conflict_do_update(index_elements=["id"], set_=row))
            await conn.execute(gone)

    @reaching_database
    async def leave(self, worker: str) -> None:
        await self.db.write(delete(WORKERS).where(WORKERS.c.id == worker))

    @reaching_database
    async def ai_capacity(self) -> int:
        """The decisions the processes heard from lately can make at once."""
        live = WORKERS.c.seen_at >= self.db.clock() - WORKER_SILENCE_SECONDS
        capacity = select(func.coalesce(func.sum(WORKERS.c.capacity), 0)).where(live)
        return int((await self.db.read(capacity))[0][0])
