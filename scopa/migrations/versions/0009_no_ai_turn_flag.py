"""matches.ai_turn dropped: the ai_turns queue says which matches wait on the AI

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Since 0005 the pending AI turns are rows of ``ai_turns``, written in the transaction that
stores the match; the flag on ``matches`` and its index were still written with every save
and read by nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_matches_ai_turn", table_name="matches")
    # Not a batch: on SQLite that copies the table, which the events, seats and queues
    # refer to. SQLite drops a column itself since 3.35.
    op.execute("ALTER TABLE matches DROP COLUMN ai_turn")


def downgrade() -> None:
    op.add_column(
        "matches", sa.Column("ai_turn", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_index("ix_matches_ai_turn", "matches", ["ai_turn"])
    op.execute(
        "UPDATE matches SET ai_turn = EXISTS"
        " (SELECT 1 FROM ai_turns WHERE ai_turns.match_id = matches.id)"
    )
