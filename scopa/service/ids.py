"""Secrets and opaque handles: match ids, seat tokens and their hashes, lobby cursors."""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import secrets
from collections.abc import Callable

import msgspec

from scopa.service.errors import InvalidCursor
from scopa.service.ports import Challenge, MatchRecord

_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{22}")
_HANDLE = re.compile(r"[A-Za-z0-9_-]{3,24}")
_CHALLENGE_ID = re.compile(r"c_[A-Za-z0-9_-]{12}")
# Cursors are unpadded url-safe base64 of (created_at, id).
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,400}$"
_CURSOR = re.compile(CURSOR_PATTERN)
_SEED_BITS = 63


def new_match_id() -> str:
    return secrets.token_urlsafe(16)


def is_match_id(text: str) -> bool:
    """Ids are random url-safe strings of one length: anything else is simply unknown."""
    return _MATCH_ID.fullmatch(text) is not None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def revoked_key(token_hash: str) -> str:
    """What a token's revocation is announced and waited on as: derived from its hash, so
    that the announcement names no hash a store looks tokens up by (no match id, and no
    ``@`` of a player's news, starts with ``!``)."""
    return "!" + hashlib.sha256(f"scopa revoked {token_hash}".encode()).hexdigest()[:24]


# A player's token: the prefix and a length no seat token has (those are 43 characters).
PLAYER_TOKEN_PREFIX = "scp_"


def new_player_token() -> str:
    return PLAYER_TOKEN_PREFIX + secrets.token_urlsafe(32)


def is_player_token(token: str) -> bool:
    return token.startswith(PLAYER_TOKEN_PREFIX) and len(token) == 47


def new_token_id() -> str:
    return "t_" + secrets.token_urlsafe(9)


def new_challenge_id() -> str:
    return "c_" + secrets.token_urlsafe(9)


def is_challenge_id(text: str) -> bool:
    return _CHALLENGE_ID.fullmatch(text) is not None


def token_hash(token: str) -> str:
    """Tokens are stored only as this hash."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_seed() -> int:
    return secrets.randbits(_SEED_BITS)


def encode_cursor(record: MatchRecord | Challenge) -> str:
    """A cursor past a list's item ordered by (created_at, id)."""
    raw = msgspec.json.encode((record.created_at, record.id))
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def encode_position(position: tuple[float, str, int]) -> str:
    """A cursor past a leaderboard's (rating, handle), with the rank reached."""
    raw = msgspec.json.encode(position)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_position(cursor: str) -> tuple[float, str, int]:
    try:
        if not _CURSOR.fullmatch(cursor):
            raise ValueError(cursor)
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        rating, handle, rank = msgspec.json.decode(raw, type=tuple[float, str, int])
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise InvalidCursor("the cursor is not one this server gave out") from exc
    if not (math.isfinite(rating) and _HANDLE.fullmatch(handle) and rank >= 0):
        raise InvalidCursor("the cursor is not one this server gave out")
    return rating, handle, rank


def decode_cursor(cursor: str, is_id: Callable[[str], bool] = is_match_id) -> tuple[float, str]:
    if not _CURSOR.fullmatch(cursor):
        raise InvalidCursor("the cursor is not one this server gave out")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, match_id = msgspec.json.decode(raw, type=tuple[float, str])
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise InvalidCursor("the cursor is not one this server gave out") from exc
    # It reaches the database: only what a real cursor could hold (no NUL for Postgres).
    if not (math.isfinite(created_at) and is_id(match_id)):
        raise InvalidCursor("the cursor is not one this server gave out")
    return created_at, match_id
