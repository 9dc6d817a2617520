"""Who is asking about which match: the match must exist before a token can be judged
against it, and a token is a seat's only in its own match."""

from __future__ import annotations

from dataclasses import dataclass

from scopa.service.errors import InvalidToken, MatchNotFound
from scopa.service.ids import is_match_id, token_hash
from scopa.service.ports import MatchReads, MatchRecord, MatchRepository
from scopa.service.recent import RecentMatches


@dataclass(frozen=True)
class Caller:
    """Who is asking about which match: ``seat`` None is a spectator."""

    record: MatchRecord
    seat: int | None
    token_hash: str | None
    fresh: bool = True  # False: ``record`` is this process's last sight of the match

    @property
    def match_id(self) -> str:
        return self.record.id


class Callers:
    def __init__(self, matches: MatchRepository, reads: MatchReads, recent: RecentMatches) -> None:
        self.matches = matches
        self.reads = reads
        self.recent = recent

    async def load(self, match_id: str) -> MatchRecord:
        record = await self.matches.get(match_id) if is_match_id(match_id) else None
        if record is None:
            # Not echoing the id: it is whatever the caller put in the path.
            raise MatchNotFound("no such match")
        self.recent.remember(record)
        return record

    async def caller(
        self, match_id: str, token: str | None, *, required: bool = False, recent: bool = False
    ) -> Caller:
        """The caller of ``match_id`` with ``token`` (None: a spectator, refused when a seat
        is ``required``).

        ``recent``: the match as this process last saw it will do (for a move, which
        confirms it), when the token's seat is known."""
        if token is None:
            record = await self.load(match_id)
            if required:
                raise InvalidToken("this route needs a seat token")
            return Caller(record, None, None)
        hashed = token_hash(token)
        if recent:
            seen = self.recent.seat_of(match_id, hashed)
            if seen is not None:
                return Caller(seen[0], seen[1], hashed, fresh=False)
        found = (
            await self.matches.get_for_token(match_id, hashed) if is_match_id(match_id) else None
        )
        if found is None:
            raise MatchNotFound("no such match")
        record, seat = found
        if seat is None:
            raise InvalidToken("the token is not a seat token of this match")
        self.recent.remember(record, hashed, seat)
        return Caller(record, seat, hashed)

    async def check_token(self, token: str | None) -> None:
        """Routes without a match still refuse a token no match ever issued."""
        if token is not None and not await self.reads.token_known(token_hash(token)):
            raise InvalidToken("the token is not a seat token of any match")
