"""The matches this process last read or wrote, as it saw them: a hint that spares a move
its read of the match.

Never an authority. Another process may have changed a match since, so the service
accepts a move decided on a remembered state only through the store's version-checked
save (a stale state loses the save, and the service reloads), and refuses one only after
reading the match afresh. The two things that are final once seen, that a match exists
and which seat a token hash holds, are what let a move skip its read.
"""

from __future__ import annotations

from collections import OrderedDict

from scopa.service.ports import MatchRecord

# About 3 kB a match (its state, and the seats' token hashes):
# some 12 MB at most, for far more matches than one process serves at once.
CAPACITY = 4096


class RecentMatches:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        # match id -> (the newest record seen, token hash -> seat)
        self._entries: OrderedDict[str, tuple[MatchRecord, dict[str, int]]] = OrderedDict()

    def seat_of(self, match_id: str, token_hash: str) -> tuple[MatchRecord, int] | None:
        """The remembered record and the token's seat, when both are known."""
        entry = self._entries.get(match_id)
        if entry is None:
            return None
        seat = entry[1].get(token_hash)
        if seat is None:
            return None
        self._entries.move_to_end(match_id)
        return entry[0], seat

    def remember(
        self, record: MatchRecord, token_hash: str | None = None, seat: int | None = None
    ) -> None:
        """Keep ``record`` unless a newer version is already known (reads that raced a
        save may arrive in any order)."""
        entry = self._entries.get(record.id)
        if entry is None:
            entry = (record, {})
        elif record.state.version >= entry[0].state.version:
            entry = (record, entry[1])
        if token_hash is not None and seat is not None:
            entry[1][token_hash] = seat
        self._entries[record.id] = entry
        self._entries.move_to_end(record.id)
        if len(self._entries) > self._capacity:
            self._entries.popitem(last=False)
