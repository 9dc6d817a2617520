"""AI turns become a queue: ``ai_turns`` holds the pending ones, ``ai_workers`` the
processes playing them

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03

Every match waiting on an AI seat gets its row, ready at once: a match of AI seats only
is told apart by its seats (decoded from the stored state, as this revision's code reads
it), so even the backlog left by an older server is played humans' matches first.
"""

# No ``from __future__ import annotations``: msgspec would look the Structs' annotations
# up through sys.modules, where Alembic does not put a revision.
from collections.abc import Sequence

import msgspec
import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None



class _Seat(msgspec.Struct):
    kind: str


class _State(msgspec.Struct):
    """All this revision reads of a stored ``MatchState``: who sits at each seat."""

    seats: tuple[_Seat, ...]


def _has_human(state: _State) -> bool:
    return any(seat.kind != "ai" for seat in state.seats)


MATCHES = sa.table(
    "matches",
    sa.column("id", sa.String),
    sa.column("state", sa.LargeBinary),
    sa.column("updated_at", sa.Double),
    sa.column("ai_turn", sa.Boolean),
)


def upgrade() -> None:
    turns = op.create_table(
        "ai_turns",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("human", sa.Boolean(), nullable=False),
        sa.Column("ready_at", sa.Double(), nullable=False),
        sa.Column("lease_until", sa.Double(), nullable=True),
        sa.Column("leased_by", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_ai_turns_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_ai_turns")),
    )
    op.create_index(op.f("ix_ai_turns_human_ready_at"), "ai_turns", ["human", "ready_at"])
    op.create_table(
        "ai_workers",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("seen_at", sa.Double(), nullable=False),
        sa.Column("capacity", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_workers")),
    )
    op.create_index(op.f("ix_ai_workers_seen_at"), "ai_workers", ["seen_at"])
    bind = op.get_bind()
    decode = msgspec.msgpack.Decoder(_State).decode
    pending = sa.select(MATCHES.c.id, MATCHES.c.state, MATCHES.c.updated_at).where(
        MATCHES.c.ai_turn
    )
    rows = [
        {"match_id": row.id, "human": _has_human(decode(row.state)), "ready_at": row.updated_at}
        for row in bind.execute(pending)
    ]
    if rows:
        bind.execute(sa.insert(turns), rows)


def downgrade() -> None:
    op.drop_index(op.f("ix_ai_workers_seen_at"), table_name="ai_workers")
    op.drop_table("ai_workers")
    op.drop_index(op.f("ix_ai_turns_human_ready_at"), table_name="ai_turns")
    op.drop_table("ai_turns")
