"""matches, seats, events, idempotency

Revision ID: 0001
Revises:
Create Date: 2025-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("initial", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("updated_at", sa.Double(), nullable=False),
        sa.Column("has_open_seat", sa.Boolean(), nullable=False),
        sa.Column("ai_turn", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(
        op.f("ix_matches_has_open_seat_created_at_id"),
        "matches",
        ["has_open_seat", "created_at", "id"],
    )
    op.create_index(op.f("ix_matches_ai_turn"), "matches", ["ai_turn"])
    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_seats_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_token_hash"), "seats", ["token_hash"], unique=True)
    op.create_table(
        "events",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_events_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "seq", name=op.f("pk_events")),
    )
    op.create_table(
        "idempotency",
        sa.Column("scope", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("fingerprint", sa.String(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.Column("location", sa.String(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key", name=op.f("pk_idempotency")),
    )
    op.create_index(op.f("ix_idempotency_created_at"), "idempotency", ["created_at"])


def downgrade() -> None:
    op.drop_table("idempotency")
    op.drop_table("events")
    op.drop_index(op.f("ix_seats_token_hash"), table_name="seats")
    op.drop_table("seats")
    op.drop_index(op.f("ix_matches_ai_turn"), table_name="matches")
    op.drop_index(op.f("ix_matches_has_open_seat_created_at_id"), table_name="matches")
    op.drop_table("matches")
