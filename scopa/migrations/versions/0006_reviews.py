"""reviews: the coach's review of a seat of a finished match, kept once computed

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_reviews_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_reviews")),
    )


def downgrade() -> None:
    op.drop_table("reviews")
