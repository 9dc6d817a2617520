"""The passing of a match's moments (``service.lifecycle``), met by whichever process
finds them due."""

from __future__ import annotations

from scopa.service.changes import Changes
from scopa.service.ports import MatchReads


class Moments:
    def __init__(self, changes: Changes, reads: MatchReads) -> None:
        self.changes = changes
        self.reads = reads

    async def enforce(self, match_id: str) -> None:
        """Make the change the match's passed moment calls for, if it is still due.

        Any number of processes may try at once: the store takes the first change decided
        on the version, and the others reload and find the moment gone."""
        await self.changes.passed(match_id)

    async def due(self, limit: int) -> list[str]:
        """Matches whose moment has passed, longest overdue first."""
        return await self.reads.due(self.changes.clock(), limit)
