"""The lobby: matches with an open seat to join, and those being played to watch."""

from __future__ import annotations

from typing import Literal

from scopa.contract.views import match_view
from scopa.service.answers import Lobby
from scopa.service.ids import decode_cursor, encode_cursor
from scopa.service.ports import MatchReads

LobbyStatus = Literal["waiting", "active"]


class Listings:
    def __init__(self, reads: MatchReads) -> None:
        self.reads = reads

    async def lobby(self, limit: int, cursor: str | None, status: LobbyStatus = "waiting") -> Lobby:
        """Waiting matches oldest first, or active ones newest first."""
        after = decode_cursor(cursor) if cursor is not None else None
        listed = self.reads.waiting if status == "waiting" else self.reads.active
        # One more than asked tells whether another page exists.
        records = await listed(limit + 1, after)
        page = records[:limit]
        more = len(records) > limit
        return Lobby(
            tuple(match_view(r.id, r.state, None) for r in page),
            encode_cursor(page[-1]) if more else None,
        )

    async def active_matches(self) -> int:
        """How many matches are being played, across every process."""
        return await self.reads.active_count()
