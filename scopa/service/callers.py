"""Who is asking about which match: the match must exist before a token can be judged
against it, and a token is a seat's only in its own match."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from scopa.domain.match import MatchState
from scopa.service.errors import InvalidToken, MatchNotFound
from scopa.service.handles import DELETED
from scopa.service.ids import is_match_id, is_player_token, token_hash
from scopa.service.ports import MatchReads, MatchRecord, MatchRepository, Player, Players
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
    def __init__(
        self,
        matches: MatchRepository,
        reads: MatchReads,
        recent: RecentMatches,
        players: Players | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.matches = matches
        self.reads = reads
        self.recent = recent
        self.players = players
        self.clock = clock

    async def player(self, token: str | None) -> Player:
        """The player a player token stands for, asked of the store each time so that a
        revoked token is refused at once; InvalidToken for any other token."""
        found = None
        if token is not None and is_player_token(token) and self.players is not None:
            found = await self.players.authenticate(token_hash(token), self.clock())
        if found is None:
            raise InvalidToken("this route needs a live player token")
        return found

    async def player_of(self, token: str | None) -> Player | None:
        """The player of a player token; None for no token or a seat token."""
        if token is None or not is_player_token(token):
            return None
        return await self.player(token)

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
        if is_player_token(token):
            return await self._players_seat(match_id, token)
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

    async def as_left(self, state: MatchState) -> MatchState:
        """A finished match as it shows now: a seat of a player deleted since shows
        ``DELETED``. Only a finished match can have one (a busy player is not deleted)."""
        if state.status != "finished" or self.players is None:
            return state
        handles = {s.player for s in state.seats if s.player is not None}
        gone = {h for h in handles if await self.players.player(h) is None}
        if not gone:
            return state
        seats = tuple(
            msgspec.structs.replace(s, name=DELETED) if s.player in gone else s for s in state.seats
        )
        return msgspec.structs.replace(state, seats=seats)

    async def _players_seat(self, match_id: str, token: str) -> Caller:
        """A player token on a match's route stands for the player's seat in it."""
        record = await self.load(match_id)
        player = await self.player(token)
        seat = next(
            (i for i, s in enumerate(record.state.seats) if s.player == player.handle), None
        )
        hashed = (await self.reads.seat_tokens(match_id)).get(seat) if seat is not None else None
        if seat is None or hashed is None or record.state.seats[seat].kind != "human":
            raise InvalidToken("the player holds no seat in this match")
        return Caller(record, seat, hashed)

    async def check_token(self, token: str | None) -> None:
        """Routes without a match still refuse a token no match ever issued, and a player
        token that is not live."""
        if token is None:
            return
        if is_player_token(token):
            await self.player(token)
        elif not await self.reads.token_known(token_hash(token)):
            raise InvalidToken("the token is not a seat token of any match")
