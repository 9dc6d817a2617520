"""review_jobs, hint_jobs: AI work asked of the workers by API processes that run no AI

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01

With ``SCOPA_AI_IN_PROCESS=off`` an API process computes no review and decides no hint: it
leaves a row here, a ``scopa worker`` claims it under a lease and does the work once. A
review is kept in ``reviews``, its row deleted in the same transaction; a hint's answer is
written on its row, which the asking process reads and deletes (or deletes unanswered
when its client went away).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_jobs",
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("asked_at", sa.Double(), nullable=False),
        sa.Column("lease_until", sa.Double(), nullable=True),
        sa.Column("leased_by", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_review_jobs_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_review_jobs")),
    )
    op.create_index(op.f("ix_review_jobs_asked_at"), "review_jobs", ["asked_at"])
    op.create_table(
        "hint_jobs",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("match_id", sa.String(), nullable=False),
        sa.Column("state", sa.LargeBinary(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("level", sa.String(), nullable=False),
        sa.Column("asked_at", sa.Double(), nullable=False),
        sa.Column("lease_until", sa.Double(), nullable=True),
        sa.Column("leased_by", sa.String(), nullable=True),
        sa.Column("answer", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_hint_jobs_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hint_jobs")),
    )
    op.create_index(op.f("ix_hint_jobs_asked_at"), "hint_jobs", ["asked_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_hint_jobs_asked_at"), table_name="hint_jobs")
    op.drop_table("hint_jobs")
    op.drop_index(op.f("ix_review_jobs_asked_at"), table_name="review_jobs")
    op.drop_table("review_jobs")
