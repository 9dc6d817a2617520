"""Idempotency-Keys of create, join and register belong to their caller: the old rows go

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07

Until this revision the answers of create, join and register were kept under a scope
that named only the route ("create", "register", "join:<match>:<seat>"), so anyone who
sent the key and an equal body got the seat or player tokens they hold. From this
revision the scope names the caller too ("create addr:<address>", "join:<match>:<seat>
player:<handle>", ...), and the secrets an answer is sealed under are derived with it.
An old row cannot be moved to its caller's scope: its caller was never stored, and its
row key and sealing key are derived from a key the server never kept. No request can
reach one any more, so each is deleted now rather than left, sealed tokens inside, for
the purge to find a day later. A client retrying across the upgrade gets a fresh
request. The rows of moves and rematches were already their seat token's, and stay.

On SQLite what is deleted is overwritten (secure_delete). On Postgres run ``VACUUM
idempotency`` after the upgrade for the space to be reused.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# A scope that names its caller holds a space ("<route> <caller>"); the old ones held none.
ROUTE_ONLY = (
    "scope IN ('create', 'register') OR (scope LIKE 'join:%' AND scope NOT LIKE '% %')"
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("PRAGMA secure_delete = ON")
    op.execute(f"DELETE FROM idempotency WHERE {ROUTE_ONLY}")


def downgrade() -> None:
    # The older code looks for none of the caller's scopes: their rows are unreachable.
    if op.get_bind().dialect.name == "sqlite":
        op.execute("PRAGMA secure_delete = ON")
    op.execute("DELETE FROM idempotency WHERE scope LIKE '% %'")
