"""limits shared by every process: counted windows, stream leases, match owners

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

Rate limits and "at once" quotas used to be counted in each process's memory, so N
processes gave a client N times each limit. From here on the counts live in the database:
``limit_counts`` (requests per client per fixed window), ``stream_leases`` (each open
stream or long poll, renewed by its process, lapsing when it dies) and, on ``matches``, the
creator of a match that counts toward a quota (``owner``, ``quota``). Matches stored
before have no owner and count toward nobody's quota.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Unlogged on Postgres: counts and leases are worth nothing after a crash (windows are
    # a minute, leases lapse in 30 s), and a write that skips the WAL does not wait for
    # it to reach the disk, which is most of a counted request's cost.
    unlogged = ["UNLOGGED"] if op.get_bind().dialect.name == "postgresql" else []
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("owner", sa.String(), nullable=True))
        batch.add_column(sa.Column("quota", sa.String(16), nullable=True))
        batch.create_index(batch.f("ix_matches_owner_quota_status"), ["owner", "quota", "status"])
    op.create_table(
        "limit_counts",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("client", sa.String(), nullable=False),
        sa.Column("period", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("cap", sa.Integer(), nullable=False),
        sa.Column("ends_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("name", "client", "period", name=op.f("pk_limit_counts")),
        prefixes=unlogged,
    )
    op.create_index(op.f("ix_limit_counts_ends_at"), "limit_counts", ["ends_at"])
    op.create_table(
        "stream_leases",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("process", sa.String(), nullable=False),
        sa.Column("client", sa.String(), nullable=False),
        sa.Column("match_id", sa.String(), nullable=True),
        sa.Column("expires_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stream_leases")),
        prefixes=unlogged,
    )
    for column in ("process", "client", "match_id", "expires_at"):
        op.create_index(op.f(f"ix_stream_leases_{column}"), "stream_leases", [column])


def downgrade() -> None:
    op.drop_table("stream_leases")
    op.drop_table("limit_counts")
    with op.batch_alter_table("matches") as batch:
        batch.drop_index(batch.f("ix_matches_owner_quota_status"))
        batch.drop_column("quota")
        batch.drop_column("owner")
