"""stored answers keep only what a replay reads: the fingerprint and the body

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A claim is a row whose body is still NULL; an answer always had a status and a body.
    with op.batch_alter_table("idempotency") as batch:
        batch.drop_column("status")
        batch.drop_column("location")


def downgrade() -> None:
    with op.batch_alter_table("idempotency") as batch:
        batch.add_column(sa.Column("status", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("location", sa.String(), nullable=True))
    # The old code told answers from claims by a status (it read nothing else of it).
    op.execute("UPDATE idempotency SET status = 200 WHERE body IS NOT NULL")
