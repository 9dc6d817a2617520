"""Handles as people read them: two handles that a reader could take for one another are
one handle, so nobody can squat a look-alike of another player's.

Handles are ASCII (the schema refuses the rest, so no Cyrillic letter passes for a Latin
``a``); within ASCII, case, ``0`` for ``o``, ``1``, ``i`` and ``l`` for one another, and
``-`` for ``_`` are folded away.
"""

from __future__ import annotations

import re

HANDLE_PATTERN = r"^[A-Za-z0-9_-]{3,24}$"
_HANDLE = re.compile(HANDLE_PATTERN)
_FOLD = str.maketrans({"0": "o", "1": "l", "i": "l", "-": "_"})
# Kept by the server: words of its own routes and seats, and the AI levels.
RESERVED = frozenset({"open", "admin", "scopa", "server", "deleted", "anonymous"})


def is_handle(text: str) -> bool:
    return _HANDLE.fullmatch(text) is not None


def handle_key(handle: str) -> str:
    """The handle as people read it: equal keys, one handle."""
    return handle.lower().translate(_FOLD)


def reserved(handle: str, levels: tuple[str, ...]) -> bool:
    key = handle_key(handle)
    return key in {handle_key(word) for word in (*RESERVED, *levels)}
