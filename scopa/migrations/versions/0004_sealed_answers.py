"""stored answers sealed and keys hashed: every older row rewritten so, or deleted

Revision ID: 0004
Create Date: 2026-12-02

Rows written before this revision hold the client's Idempotency-Key and the answer in the
clear, a create's or a join's with its seat tokens. Each is encrypted, not deleted: its
own key is all the new form needs, and a client retrying across the upgrade (the server
restarted under its request) still gets its first answer instead of a second match. The
rows are rewritten as this revision's code kept them (written out below, as it was then
in ``service.idempotency.Claim``: the key hashed, the fingerprint keyed, the answer
sealed); a later change of that form comes with a migration of its own.

Deleted instead: the rows of create and join whose key is under 16 characters. Those
routes now refuse such a key, so no retry can reach them, and an answer sealed under so
short a key could be opened by trying keys.

On SQLite what is deleted is overwritten (secure_delete), so no token lingers in the
file's free pages. On Postgres the old row versions stay in the table's files until
vacuumed and their space reused: run ``VACUUM FULL idempotency`` after the upgrade to
rewrite the table without them. Backups taken before the upgrade still hold tokens.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The shortest key create and join take from this revision on.
SHORTEST_SECRET_KEY = 16
BATCH = 500
# The sealing of this revision: one HKDF over the client's key, under the scope, gives
# the row's key, the fingerprint's key and the AES-GCM key, 32 bytes each.
INFO = b"scopa idempotency v1 scope="
PART = 32
NONCE = 12

ANSWERS = sa.table(
    "idempotency",
    sa.column("scope", sa.String),
    sa.column("key", sa.String),
    sa.column("fingerprint", sa.String),
    sa.column("body", sa.LargeBinary),
    sa.column("created_at", sa.Double),
)
# The rows as they were, while the table takes them back rewritten one batch at a time.
PLAIN = sa.table("plain_answers", *(sa.column(c.name, c.type) for c in ANSWERS.columns))


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("PRAGMA secure_delete = ON")
    columns = ", ".join(c.name for c in ANSWERS.columns)
    op.execute(f"CREATE TEMPORARY TABLE plain_answers AS SELECT {columns} FROM idempotency")
    op.execute("DELETE FROM idempotency")
    for rows in _batches(bind):
        sealed = [_sealed(row) for row in rows if _reachable(row)]
        if sealed:
            bind.execute(sa.insert(ANSWERS), sealed)
    op.execute("DROP TABLE plain_answers")


def _batches(bind: sa.Connection) -> Iterator[Sequence[sa.Row[Any]]]:
    """The old rows in primary key order, a batch at a time, so memory stays bounded."""
    order = (PLAIN.c.scope, PLAIN.c.key)
    query = sa.select(PLAIN).order_by(*order).limit(BATCH)
    after: tuple[str, str] | None = None
    while True:
        page = query if after is None else query.where(sa.tuple_(*order) > sa.tuple_(*after))
        rows = bind.execute(page).all()
        if not rows:
            return
        yield rows
        after = (rows[-1].scope, rows[-1].key)


def _reachable(row: sa.Row[Any]) -> bool:
    fetches_tokens = row.scope == "create" or row.scope.startswith("join:")
    return not fetches_tokens or len(row.key) >= SHORTEST_SECRET_KEY


def _sealed(row: sa.Row[Any]) -> dict[str, Any]:
    derived = HKDF(SHA256(), 3 * PART, None, INFO + row.scope.encode()).derive(row.key.encode())
    row_key, fingerprint_key, sealing_key = (derived[i : i + PART] for i in range(0, 3 * PART, PART))
    body = None
    if row.body is not None:
        nonce = os.urandom(NONCE)
        body = nonce + AESGCM(sealing_key).encrypt(nonce, row.body, None)
    return {
        "scope": row.scope,
        "key": row_key.hex(),
        "fingerprint": hmac.digest(fingerprint_key, row.fingerprint.encode(), "sha256").hex(),
        "body": body,
        "created_at": row.created_at,
    }


def downgrade() -> None:
    # A hash gives no key back, nor a sealed answer its text: the older code could find
    # none of these rows, so none is kept.
    op.execute("DELETE FROM idempotency")
