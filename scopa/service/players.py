"""Players with an identity: registering, the player's tokens, deleting it, and who a
player token stands for."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from scopa.contract.players import (
    CountsView,
    IssuedToken,
    Me,
    PlayerView,
    RatingHistory,
    RatingPoint,
    RatingView,
    Registered,
    TokenView,
)
from scopa.contract.views import rfc3339
from scopa.domain.errors import InvalidSetup
from scopa.domain.rated import PROVISIONAL
from scopa.service.errors import PlayerNotFound, TokenNotFound
from scopa.service.handles import KEPT_NAME, handle_key, is_handle, reserved
from scopa.service.idempotency import Claim, Once, answer_of, caller_scope
from scopa.service.ids import new_player_token, new_token_id, revoked_key, token_hash
from scopa.service.ports import (
    Counts,
    EventBus,
    HandleTaken,
    Player,
    Players,
    PlayerToken,
    Standings,
    StoredRating,
)

# Live tokens a player may hold at once.
TOKENS_PER_PLAYER = 10
FIRST_LABEL = "first"


def origin_of(client: str) -> str:
    """What is kept of the address a player registers from: enough to tell two players
    from one address apart, not the address."""
    return hashlib.sha256(f"scopa origin {client}".encode()).hexdigest()


class Accounts:
    def __init__(
        self,
        players: Players,
        standings: Standings,
        once: Once,
        clock: Callable[[], float],
        bus: EventBus,
    ) -> None:
        self.players = players
        self.standings = standings
        self.once = once
        self.clock = clock
        self.bus = bus

    async def register(
        self,
        handle: str,
        name: str | None,
        kind: str,
        label: str | None,
        client: str,
        key: str | None,
        fingerprint: str,
    ) -> Registered:
        """A new player and its first token; HandleTaken for a handle registered already
        (as people read it) or kept by the server, InvalidSetup for a name it keeps. The
        key is ``client``'s, the address it registers from."""
        if reserved(handle):
            raise HandleTaken(f"the handle {handle!r} is kept by the server")
        if name is not None and reserved(name):
            raise InvalidSetup([("name", KEPT_NAME)])

        async def run(request: Claim | None) -> Registered:
            now = self.clock()
            player = Player(handle, name or handle, kind, now, origin_of(client))
            token, secret = self._new_token(handle, label or FIRST_LABEL, now)
            answer = Registered(player_view(player, [], Counts()), issued(token, secret))
            await self.players.register(
                player, handle_key(handle), token, token_hash(secret), answer_of(request, answer)
            )
            return answer

        scope = caller_scope("register", address=client)
        registered = await self.once.run(scope, key, fingerprint, Registered, run)
        # A retry replays the first answer, which names the player and its first token: if
        # the player was deleted since, neither exists, and the handle is never given out
        # again, so the retry meets what a new registration of it would.
        if key is not None and await self.players.player(handle) is None:
            raise HandleTaken(f"the handle {handle!r} belonged to a player since deleted")
        return registered

    def _new_token(self, handle: str, label: str, now: float) -> tuple[PlayerToken, str]:
        return PlayerToken(new_token_id(), handle, label, now), new_player_token()

    async def profile(self, handle: str) -> PlayerView:
        found = await self.players.player(handle) if is_handle(handle) else None
        if found is None:
            raise PlayerNotFound("no such player")
        return await self.view(found)

    async def rating_history(self, handle: str, format: str, limit: int) -> RatingHistory:
        found = await self.players.player(handle) if is_handle(handle) else None
        if found is None:
            raise PlayerNotFound("no such player")
        games = await self.standings.rating_history(found.handle, format, limit)
        return RatingHistory(
            found.handle,
            format,
            tuple(
                RatingPoint(g.match_id, rfc3339(g.finished_at), round(g.rating, 1)) for g in games
            ),
        )

    async def me(self, player: Player) -> Me:
        tokens = await self.players.tokens(player.handle)
        return Me(await self.view(player), tuple(map(token_view, tokens)))

    async def new_token(
        self, player: Player, label: str | None, key: str | None = None, fingerprint: str = ""
    ) -> IssuedToken:
        """A new token of the player's, once per the player's Idempotency-Key."""

        async def run(request: Claim | None) -> IssuedToken:
            token, secret = self._new_token(player.handle, label or FIRST_LABEL, self.clock())
            answer = issued(token, secret)
            await self.players.add_token(
                token, token_hash(secret), TOKENS_PER_PLAYER, answer_of(request, answer)
            )
            return answer

        scope = caller_scope("token", player=player)
        return await self.once.run(scope, key, fingerprint, IssuedToken, run)

    async def revoke(self, player: Player, token_id: str) -> None:
        """Revoke the token: refused from now on, and what it opened ends (other processes
        hear of it from the store's announcement)."""
        revoked = await self.players.revoke(player.handle, token_id)
        if revoked is None:
            raise TokenNotFound("the player has no live token of that id")
        await self.bus.publish(revoked_key(revoked), 1)

    async def delete(self, player: Player) -> None:
        """Delete the player, its tokens, its seat tokens and its pending challenges at
        once; PlayerBusy while it holds a seat in a match waiting or being played."""
        for key, seq in await self.players.delete(player.handle, self.clock()):
            await self.bus.publish(key, seq)

    async def view(self, player: Player) -> PlayerView:
        ratings = await self.standings.ratings(player.handle)
        return player_view(player, ratings, await self.standings.counts(player.handle))


def player_view(player: Player, ratings: Sequence[StoredRating], counts: Counts) -> PlayerView:
    return PlayerView(
        handle=player.handle,
        name=player.name,
        kind=player.kind,
        joined_at=rfc3339(player.joined_at),
        ratings=tuple(
            RatingView(
                format=r.format,
                rating=round(r.rating, 1),
                deviation=round(r.deviation, 1),
                volatility=round(r.volatility, 6),
                games=r.games,
                provisional=r.deviation > PROVISIONAL,
            )
            for r in ratings
        ),
        counts=CountsView(counts.played, counts.won, counts.lost),
    )


def issued(token: PlayerToken, secret: str) -> IssuedToken:
    return IssuedToken(token.id, token.label, rfc3339(token.created_at), None, secret)


def token_view(token: PlayerToken) -> TokenView:
    used = token.last_used_at
    return TokenView(
        token.id, token.label, rfc3339(token.created_at), None if used is None else rfc3339(used)
    )
