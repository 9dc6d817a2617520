"""Handles and names as people read them: two that a reader could take for one another are
one, so nobody can squat a look-alike of another player's handle, nor pass for something
the server shows of its own (an AI level, a deleted player, an open seat).

Handles are ASCII (the schema refuses the rest, so no Cyrillic letter passes for a Latin
``a``). ``handle_key`` folds away case, accents, spaces and punctuation (``_`` and ``-``
included, wherever they stand), digits that read as letters, and ``rn`` for ``m``. It is
the one fold: a handle's uniqueness, and the names the server keeps for handles and
display names alike, are decided on it.
"""

from __future__ import annotations

import re
import unicodedata

from scopa.domain.ai import LEVELS
from scopa.domain.match import SeatKind

HANDLE_PATTERN = r"^[A-Za-z0-9_-]{3,24}$"
_HANDLE = re.compile(HANDLE_PATTERN)
# A digit read as the letter it looks like; ``i``, ``1`` and ``l`` are one letter.
_DIGITS = str.maketrans("0134578i", "oleastbl")
# What the seats of a deleted player show as their name.
DELETED = "deleted player"
# The seats nobody holds yet, as the lobby and the web client show them.
_OPEN: SeatKind = "open"
# Words of the server's own, with no other source to take them from.
SERVER_WORDS = (
    "admin", "administrator", "root", "system", "server", "scopa", "anonymous", "deleted",
)  # fmt: skip
# The words the server and its web client show an AI seat by, around the level.
_AI_WORDS = ("ai", "computer", "bot")


def is_handle(text: str) -> bool:
    return _HANDLE.fullmatch(text) is not None


def handle_key(text: str) -> str:
    """The text as people read it: equal keys, one handle (or one name)."""
    decomposed = unicodedata.normalize("NFKD", text).casefold()
    kept = "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))
    return kept.translate(_DIGITS).replace("rn", "m")


def _kept() -> frozenset[str]:
    """What the server shows for itself: the deleted player's label, an open seat, its
    own words, and the AI levels, bare and as an AI seat shows them ("Expert AI",
    "Computer (expert)", "the expert computer")."""
    levels = (
        form
        for level in LEVELS
        for word in _AI_WORDS
        for form in (level, f"{level} {word}", f"{word} {level}", f"the {level} {word}")
    )
    open_seat = (_OPEN, f"{_OPEN} seat")
    return frozenset(map(handle_key, (DELETED, *open_seat, *SERVER_WORDS, *levels)))


KEPT = _kept()


# Why a display name is refused, as invalid_params says it.
KEPT_NAME = "reads as a name the server shows of its own (an AI level, a deleted player, open)"


def reserved(text: str) -> bool:
    """Whether a handle or display name reads as something the server shows of its own."""
    return handle_key(text) in KEPT
