"""players.handle_key recomputed: digits read as letters, rn as m, _ and - ignored

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07

A handle is unique as people read it, decided on ``handle_key``. The fold now also reads
3, 4, 5, 7 and 8 as e, a, s, t and b, ``rn`` as ``m``, and drops ``_`` and ``-`` wherever
they stand, so ``5amuel``, ``sarnuel`` and ``_samuel`` are ``samuel``.

Players registered before who now read as one another are all kept: the first to hold
the new key (a row whose key does not change, then the earliest registered) takes it, and
the others keep their old key. An old key that differs from its handle's new key holds a
digit 3-8, an ``_`` or an ``rn``, which no new key holds, so it never blocks a new
registration, and a new handle reading as any of them is refused by the first's key.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The folds as they stand at this revision, copied: a migration means tomorrow what it
# means today.
_OLD = str.maketrans({"0": "o", "1": "l", "i": "l", "-": "_"})
_DIGITS = str.maketrans("0134578i", "oleastbl")


def _old_key(handle: str) -> str:
    return handle.lower().translate(_OLD)


def _new_key(handle: str) -> str:
    decomposed = unicodedata.normalize("NFKD", handle).casefold()
    kept = "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))
    return kept.translate(_DIGITS).replace("rn", "m")


def _rekey(key_of: str) -> None:
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT handle, handle_key FROM players ORDER BY joined_at, handle")
    ).all()
    fold = _new_key if key_of == "new" else _old_key
    taken = {row.handle_key for row in rows if fold(row.handle) == row.handle_key}
    for row in rows:
        key = fold(row.handle)
        if key == row.handle_key or key in taken:
            continue
        taken.add(key)
        conn.execute(
            sa.text("UPDATE players SET handle_key = :key WHERE handle = :handle"),
            {"key": key, "handle": row.handle},
        )


def upgrade() -> None:
    _rekey("new")


def downgrade() -> None:
    # The old fold tells apart every two handles the new one does: no key collides.
    _rekey("old")
