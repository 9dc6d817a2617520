"""The players' ports in memory, over a ``FakeStore``'s matches: the seats players hold,
their results and ratings written by the store's commit, as the SQL unit of work does;
and the challenges, an accepted one settled by that commit too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from scopa.domain.events import MatchFinished
from scopa.domain.glicko import Rating
from scopa.domain.match import MatchState
from scopa.domain.rated import FORMATS, PROVISIONAL, counts, format_of, new_ratings, result_of
from scopa.service.challenges import inbox_key, news_of
from scopa.service.handles import handle_key
from scopa.service.ids import revoked_key
from scopa.service.limits import (
    CHALLENGES_MADE,
    CHALLENGES_PENDING,
    QuotaExceeded,
    minute_after,
)
from scopa.service.ports import (
    Answer,
    Challenge,
    ChallengeGone,
    Change,
    Counts,
    HandleTaken,
    MatchRecord,
    Player,
    PlayerBusy,
    PlayerGone,
    PlayerToken,
    RatedGame,
    Settlement,
    StoredRating,
    TooManyTokens,
)

if TYPE_CHECKING:
    from tests.fakes import FakeStore

TOUCH_SECONDS = 60.0


@dataclass
class FakePlayers:
    store: FakeStore
    players: dict[str, Player] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # handle_key -> handle
    deleted: set[str] = field(default_factory=set)
    issued: dict[str, tuple[PlayerToken, str]] = field(default_factory=dict)  # by id, hash
    # (match id, seat) -> (handle, the match's created_at, result)
    seats: dict[tuple[str, int], tuple[str, float, str | None]] = field(default_factory=dict)
    ratings: dict[tuple[str, str], StoredRating] = field(default_factory=dict)
    rated: set[str] = field(default_factory=set)
    games: dict[tuple[str, str], list[RatedGame]] = field(default_factory=dict)

    async def register(
        self,
        player: Player,
        handle_key: str,
        token: PlayerToken,
        token_hash: str,
        answer: Answer | None = None,
    ) -> None:
        self.store.check()
        if handle_key in self.keys or player.handle in self.players:
            raise HandleTaken(player.handle)
        self.store.keys.check_keep(answer)
        self.players[player.handle] = player
        self.keys[handle_key] = player.handle
        self.issued[token.id] = (token, token_hash)
        self.store.keys.keep(answer)

    async def player(self, handle: str) -> Player | None:
        self.store.check()
        found = handle if handle in self.players else self.keys.get(handle_key(handle))
        return None if found is None or found in self.deleted else self.players[found]

    async def authenticate(self, token_hash: str, now: float) -> Player | None:
        self.store.check()
        for token, hashed in self.issued.values():
            if hashed == token_hash and token.handle not in self.deleted:
                used = token.last_used_at
                if used is None or now - used >= TOUCH_SECONDS:
                    touched = PlayerToken(
                        token.id, token.handle, token.label, token.created_at, now
                    )
                    self.issued[token.id] = (touched, hashed)
                return self.players[token.handle]
        return None

    async def tokens(self, handle: str) -> list[PlayerToken]:
        self.store.check()
        return sorted(
            (t for t, _ in self.issued.values() if t.handle == handle), key=lambda t: t.created_at
        )

    async def add_token(
        self, token: PlayerToken, token_hash: str, cap: int, answer: Answer | None = None
    ) -> None:
        self.store.check()
        if len(await self.tokens(token.handle)) >= cap:
            raise TooManyTokens(str(cap))
        self.store.keys.check_keep(answer)
        self.issued[token.id] = (token, token_hash)
        self.store.keys.keep(answer)

    async def revoke(self, handle: str, token_id: str) -> str | None:
        self.store.check()
        held = self.issued.get(token_id)
        if held is None or held[0].handle != handle:
            return None
        del self.issued[token_id]
        return held[1]

    async def delete(self, handle: str, now: float) -> list[tuple[str, int]]:
        self.store.check()
        for (match_id, _), (held, _, _) in self.seats.items():
            status = self.store.records[match_id].state.status
            if held == handle and status in ("waiting", "active"):
                raise PlayerBusy(handle)
        revoked = [i for i, (t, _) in self.issued.items() if t.handle == handle]
        told = [(revoked_key(self.issued.pop(i)[1]), 1) for i in revoked]
        for match_id, seat in [k for k, (held, _, _) in self.seats.items() if held == handle]:
            tokens = self.store.tokens.get(match_id, {})
            for hashed in [h for h, s in tokens.items() if s == seat]:
                del tokens[hashed]
        self.deleted.add(handle)
        return told + self.store.challenges.withdraw(handle)

    def check_live(self, state: MatchState, seats: Iterable[int]) -> None:
        for i in seats:
            handle = state.seats[i].player
            if handle is not None and (handle in self.deleted or handle not in self.players):
                raise PlayerGone(handle)

    # Written by FakeStore.commit, with the match.

    def seated(self, record: MatchRecord, state: MatchState, seats: Iterable[int]) -> None:
        for i in seats:
            handle = state.seats[i].player
            if handle is not None:
                self.seats[(record.id, i)] = (handle, record.created_at, None)

    def changed(self, record: MatchRecord, change: Change, token_hashes: Mapping[int, str]) -> None:
        state = change.state
        self.seated(record, state, token_hashes)
        if not any(isinstance(e, MatchFinished) for e in change.events):
            return
        for (match_id, i), (handle, created, _) in list(self.seats.items()):
            if match_id == record.id:
                self.seats[(match_id, i)] = (handle, created, result_of(state, i))
        format = format_of(state.players, state.rules.target)
        if format is None or not counts(state) or record.id in self.rated:
            return
        self.rated.add(record.id)
        current = {
            h: Rating(r.rating, r.deviation, r.volatility)
            for (h, f), r in self.ratings.items()
            if f == format
        }
        for handle, new in new_ratings(state, current).items():
            old = self.ratings.get((handle, format))
            games = 1 if old is None else old.games + 1
            self.ratings[(handle, format)] = StoredRating(
                format, new.rating, new.deviation, new.volatility, games
            )
            played = RatedGame(record.id, self.store.clock(), new.rating)
            self.games.setdefault((handle, format), []).append(played)


@dataclass
class FakeStandings:
    book: FakePlayers

    async def matches(
        self, handle: str, status: str | None, limit: int, after: tuple[float, str] | None
    ) -> list[tuple[MatchRecord, int]]:
        self.book.store.check()
        records = self.book.store.records
        found = sorted(
            (
                ((created, match_id), seat)
                for (match_id, seat), (held, created, _) in self.book.seats.items()
                if held == handle and (status is None or records[match_id].state.status == status)
            ),
            reverse=True,
        )
        if after is not None:
            found = [f for f in found if f[0] < after]
        return [(records[position[1]], seat) for position, seat in found[:limit]]

    async def counts(self, handle: str) -> Counts:
        self.book.store.check()
        results = [
            r for h, _, r in self.book.seats.values() if h == handle and r in ("won", "lost")
        ]
        return Counts(len(results), results.count("won"), results.count("lost"))

    async def ratings(self, handle: str) -> list[StoredRating]:
        self.book.store.check()
        return [self.book.ratings[(handle, f)] for f in FORMATS if (handle, f) in self.book.ratings]

    async def rating_history(self, handle: str, format: str, limit: int) -> list[RatedGame]:
        self.book.store.check()
        return self.book.games.get((handle, format), [])[-limit:]

    async def origins(self, handles: Sequence[str]) -> dict[str, str]:
        self.book.store.check()
        return {h: self.book.players[h].origin for h in handles if h in self.book.players}

    async def leaderboard(
        self, format: str, provisional: bool, limit: int, after: tuple[float, str] | None
    ) -> list[tuple[Player, StoredRating]]:
        self.book.store.check()
        listed = sorted(
            (
                (self.book.players[h], r)
                for (h, f), r in self.book.ratings.items()
                if f == format
                and h not in self.book.deleted
                and (r.deviation > PROVISIONAL) == provisional
            ),
            key=lambda pr: (-pr[1].rating, pr[0].handle),
        )
        if after is not None:
            rating, handle = after
            listed = [pr for pr in listed if (-pr[1].rating, pr[0].handle) > (-rating, handle)]
        return listed[:limit]


@dataclass
class FakeChallenges:
    store: FakeStore
    kept: dict[str, Challenge] = field(default_factory=dict)
    news: dict[str, list[bytes]] = field(default_factory=dict)

    def _read(self, challenge: Challenge) -> Challenge:
        if challenge.status == "pending" and challenge.expires_at <= self.store.clock():
            return msgspec.structs.replace(challenge, status="expired")
        return challenge

    def _pending(self) -> list[Challenge]:
        now = self.store.clock()
        found = [c for c in self.kept.values() if c.status == "pending" and c.expires_at > now]
        return sorted(found, key=lambda c: (c.created_at, c.id), reverse=True)

    def tell(self, notices: Sequence[tuple[str, bytes]]) -> None:
        for handle, body in notices:
            self.news.setdefault(handle, []).append(body)

    async def add(
        self,
        challenge: Challenge,
        notices: Sequence[tuple[str, bytes]],
        *,
        per_minute: int,
        pending: int,
        answer: Answer | None = None,
    ) -> None:
        self.store.check()
        for handle in (challenge.challenger, challenge.opponent):
            if handle is not None and handle in self.store.players.deleted:
                raise PlayerGone(handle)
        now = self.store.clock()
        mine = [c for c in self.kept.values() if c.challenger == challenge.challenger]
        recent = [c.created_at for c in mine if c.created_at > now - 60.0]
        if per_minute and len(recent) >= per_minute:
            raise QuotaExceeded(CHALLENGES_MADE, per_minute, minute_after(min(recent), now))
        if (
            pending
            and sum(c.challenger == challenge.challenger for c in self._pending()) >= pending
        ):
            raise QuotaExceeded(CHALLENGES_PENDING, pending)
        self.store.keys.check_keep(answer)
        self.kept[challenge.id] = challenge
        self.store.keys.keep(answer)
        self.tell(notices)

    async def challenge(self, challenge_id: str) -> Challenge | None:
        self.store.check()
        found = self.kept.get(challenge_id)
        return None if found is None else self._read(found)

    async def open(self, limit: int) -> list[Challenge]:
        self.store.check()
        return [c for c in self._pending() if c.opponent is None and c.level is None][:limit]

    async def of(self, handle: str, limit: int, after: tuple[float, str] | None) -> list[Challenge]:
        self.store.check()
        mine = [c for c in self._pending() if handle in (c.opponent, c.challenger)]
        return [c for c in mine if after is None or (c.created_at, c.id) < after][:limit]

    def check_settle(self, settlement: Settlement) -> None:
        found = self.kept.get(settlement.challenge_id)
        if found is None or self._read(found).status != "pending":
            raise ChallengeGone(settlement.challenge_id)

    def apply(self, settlement: Settlement) -> None:
        found = self.kept[settlement.challenge_id]
        self.kept[found.id] = msgspec.structs.replace(
            found, status=settlement.status, match_id=settlement.match_id
        )
        self.tell(settlement.notices)

    def withdraw(self, handle: str) -> list[tuple[str, int]]:
        """A deleted player's pending challenges: cancelled if made, declined if received."""
        told = []
        for challenge in self._pending():
            if handle in (challenge.challenger, challenge.opponent):
                status = "cancelled" if challenge.challenger == handle else "declined"
                done = msgspec.structs.replace(challenge, status=status)
                self.kept[done.id] = done
                for other, body in news_of(done, challenge.challenger, challenge.opponent):
                    if other != handle:
                        self.tell([(other, body)])
                        told.append((inbox_key(other), len(self.news[other])))
        return told

    async def settle(self, settlement: Settlement) -> None:
        self.store.check()
        self.check_settle(settlement)
        self.apply(settlement)

    async def inbox(self, handle: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        self.store.check()
        news = self.news.get(handle, [])
        return [(i + 1, body) for i, body in enumerate(news)][after : after + limit]

    async def latest(self, handle: str) -> int:
        self.store.check()
        return len(self.news.get(handle, []))
