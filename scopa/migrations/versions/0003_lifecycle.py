"""matches gain due_at, the next moment something must happen to them

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The defaults of SCOPA_WAITING_TTL_SECONDS and SCOPA_IDLE_TTL_SECONDS: a migration does
# not read the settings, and a match stored before had no clock.
WAITING_TTL = 3600.0
IDLE_TTL = 604800.0


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("due_at", sa.Double(), nullable=True))
        batch.create_index(batch.f("ix_matches_due_at"), ["due_at"])
    # A waiting match expires from its creation; an active one whose turn is a human's is
    # abandoned after its last change. An AI's turn and a finished match wait on nothing.
    op.execute(f"UPDATE matches SET due_at = created_at + {WAITING_TTL} WHERE status = 'waiting'")
    op.execute(
        f"UPDATE matches SET due_at = updated_at + {IDLE_TTL}"
        " WHERE status = 'active' AND NOT ai_turn"
    )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_index(batch.f("ix_matches_due_at"))
        batch.drop_column("due_at")
