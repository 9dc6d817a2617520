"""What players did, as anyone may read it: a player's matches and the leaderboard."""

from __future__ import annotations

from scopa.contract.players import Leaderboard, MyMatch, MyMatches, Standing
from scopa.contract.views import match_view
from scopa.service.ids import decode_cursor, decode_position, encode_cursor, encode_position
from scopa.service.ports import Player, Standings


class Tables:
    def __init__(self, standings: Standings) -> None:
        self.standings = standings

    async def matches(
        self, player: Player, status: str | None, limit: int, cursor: str | None
    ) -> MyMatches:
        """The player's matches, newest first, a page at a time."""
        after = decode_cursor(cursor) if cursor is not None else None
        found = await self.standings.matches(player.handle, status, limit + 1, after)
        page = found[:limit]
        return MyMatches(
            tuple(MyMatch(seat, match_view(r.id, r.state, None)) for r, seat in page),
            encode_cursor(page[-1][0]) if len(found) > limit else None,
        )

    async def leaderboard(
        self, format: str, provisional: bool, limit: int, cursor: str | None
    ) -> Leaderboard:
        """The players by rating in ``format``, best first; ranks count on across pages."""
        position = decode_position(cursor) if cursor is not None else None
        after = position[:2] if position is not None else None
        ranked = position[2] if position is not None else 0
        found = await self.standings.leaderboard(format, provisional, limit + 1, after)
        page = found[:limit]
        players = tuple(
            Standing(
                rank=ranked + i + 1,
                handle=p.handle,
                name=p.name,
                kind=p.kind,
                rating=round(r.rating, 1),
                deviation=round(r.deviation, 1),
                games=r.games,
            )
            for i, (p, r) in enumerate(page)
        )
        last = page[-1] if len(found) > limit else None
        return Leaderboard(
            format,
            provisional,
            players,
            None
            if last is None
            else encode_position((last[1].rating, last[0].handle, ranked + len(page))),
        )
