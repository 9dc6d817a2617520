"""Challenges: a player asks another (or anyone, or an AI level) for a match; accepting
creates it with both seats held, in the transaction that settles the challenge. Each
player has a stream of news of its challenges, numbered, to resume from."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from scopa.contract.challenges import Accepted, ChallengeView, MyChallenges, OpenChallenges
from scopa.contract.rules import rules_view
from scopa.contract.views import rfc3339
from scopa.domain.errors import InvalidSetup
from scopa.domain.match import Seat
from scopa.service.answers import Created
from scopa.service.errors import (
    ChallengeNotFound,
    ChallengeNotPending,
    NotYourChallenge,
    SameOrigin,
)
from scopa.service.feed import HEARTBEAT_SECONDS, MAX_EVENTS
from scopa.service.handles import handle_key, is_handle
from scopa.service.idempotency import Claim, answer_of, caller_scope
from scopa.service.ids import decode_cursor, encode_cursor, is_challenge_id, new_challenge_id
from scopa.service.ports import (
    Challenge,
    ChallengeGone,
    Challenges,
    EventBus,
    Player,
    PlayerGone,
    Players,
    Settlement,
)
from scopa.service.seating import Seating, Setup

T = TypeVar("T", bound=msgspec.Struct)

# Seconds a challenge stays open by default, and the bounds a challenger may set.
EXPIRES_IN = 600
EXPIRES_MIN, EXPIRES_MAX = 10, 86_400


@dataclass(frozen=True)
class ChallengeLimits:
    per_minute: int = 10  # challenges a player may make a minute (0: no limit)
    pending: int = 20  # pending at once


def inbox_key(handle: str) -> str:
    """What a player's news is announced and waited on as (no match id has an @)."""
    return f"@{handle}"


def challenge_view(challenge: Challenge) -> ChallengeView:
    return ChallengeView(
        id=challenge.id,
        challenger=challenge.challenger,
        opponent=challenge.opponent,
        level=challenge.level,
        rules=rules_view(challenge.rules),
        rated=challenge.rated,
        status=challenge.status,
        created_at=rfc3339(challenge.created_at),
        expires_at=rfc3339(challenge.expires_at),
        match=challenge.match_id,
    )


def news_of(challenge: Challenge, *handles: str | None) -> tuple[tuple[str, bytes], ...]:
    body = msgspec.json.encode(challenge_view(challenge))
    return tuple((h, body) for h in dict.fromkeys(handles) if h is not None)


class Challenging:
    def __init__(
        self,
        challenges: Challenges,
        players: Players,
        seating: Seating,
        bus: EventBus,
        *,
        limits: ChallengeLimits,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.challenges = challenges
        self.players = players
        self.seating = seating
        self.bus = bus
        self.limits = limits
        self.clock = clock
        self.monotonic = monotonic

    async def create(
        self,
        challenger: Player,
        opponent: str | None,
        level: str | None,
        rules: dict[str, Any],
        rated: bool,
        expires_in: int,
        key: str | None = None,
        fingerprint: str = "",
    ) -> ChallengeView:
        """A challenge, or InvalidSetup naming what no match could be; one to an AI level
        is accepted at once. QuotaExceeded past the challenger's limits. Once per the
        challenger's Idempotency-Key."""

        async def run(request: Claim | None) -> ChallengeView:
            rival = await self._rival(challenger, opponent, level)
            setup = _setup(challenger, rival, level, rules, rated)
            state, _ = self.seating.plan(setup, None)
            now = self.clock()
            challenge = Challenge(
                id=new_challenge_id(),
                challenger=challenger.handle,
                opponent=None if rival is None else rival.handle,
                level=level,
                rules=state.rules,
                rated=rated,
                status="pending",
                created_at=now,
                expires_at=now + expires_in,
            )
            view = challenge_view(challenge)
            # One to an AI level answers once accepted: its answer is kept with the match.
            try:
                await self.challenges.add(
                    challenge,
                    news_of(challenge, challenge.opponent),
                    per_minute=self.limits.per_minute,
                    pending=self.limits.pending,
                    answer=None if level is not None else answer_of(request, view),
                )
            except PlayerGone as gone:
                if gone.handle == challenger.handle:
                    raise
                raise InvalidSetup([("opponent", "no such player")]) from gone
            await self._told(challenge.opponent)
            if level is not None:
                return await self._accept(
                    challenge, challenger, None, request, lambda accepted: accepted.challenge
                )
            return view

        scope = caller_scope("challenge", player=challenger)
        return await self.seating.once.run(scope, key, fingerprint, ChallengeView, run)

    async def _rival(
        self, challenger: Player, opponent: str | None, level: str | None
    ) -> Player | None:
        if opponent is None:
            if level is not None and level not in self.seating.levels:
                levels = ", ".join(self.seating.levels) or "none on this server"
                raise InvalidSetup([("level", f"no AI level of that name: {levels}")])
            return None
        if level is not None:
            raise InvalidSetup([("level", "challenge a player or an AI level, not both")])
        if handle_key(opponent) == handle_key(challenger.handle):
            raise InvalidSetup([("opponent", "a player cannot challenge itself")])
        rival = await self.players.player(opponent) if is_handle(opponent) else None
        if rival is None:
            raise InvalidSetup([("opponent", "no such player")])
        return rival

    async def view(self, challenge_id: str) -> ChallengeView:
        return challenge_view(await self._found(challenge_id))

    async def _found(self, challenge_id: str) -> Challenge:
        found = await self.challenges.challenge(challenge_id) if len(challenge_id) <= 16 else None
        # Withdrawing is a DELETE: the challenge is gone from then on, as any deleted
        # resource; its opponent's news told it the challenge was withdrawn.
        if found is None or found.status == "cancelled":
            raise ChallengeNotFound("no such challenge, or it was withdrawn")
        return found

    async def open(self, limit: int) -> OpenChallenges:
        return OpenChallenges(tuple(map(challenge_view, await self.challenges.open(limit))))

    async def mine(self, player: Player, limit: int, cursor: str | None) -> MyChallenges:
        """The player's pending challenges, newest first, a page of ``limit`` of both
        kinds together."""
        after = decode_cursor(cursor, is_challenge_id) if cursor is not None else None
        found = await self.challenges.of(player.handle, limit + 1, after)
        page = found[:limit]
        return MyChallenges(
            tuple(challenge_view(c) for c in page if c.opponent == player.handle),
            tuple(challenge_view(c) for c in page if c.challenger == player.handle),
            encode_cursor(page[-1]) if len(found) > limit else None,
        )

    async def accept(
        self, player: Player, challenge_id: str, key: str | None = None, fingerprint: str = ""
    ) -> Accepted:
        """The challenge accepted by ``player``, once per the player's Idempotency-Key: a
        retry gets the first answer, not challenge-not-pending."""

        async def run(request: Claim | None) -> Accepted:
            challenge = _pending(await self._found(challenge_id))
            if challenge.level is not None or challenge.opponent not in (None, player.handle):
                raise NotYourChallenge("the challenge is to another player")
            if challenge.challenger == player.handle:
                raise NotYourChallenge("a player cannot accept its own challenge")
            challenger = await self._challenger(challenge)
            return await self._accept(
                challenge, challenger, player, request, lambda accepted: accepted
            )

        scope = caller_scope(f"accept:{challenge_id}", player=player)
        return await self.seating.once.run(scope, key, fingerprint, Accepted, run)

    async def _challenger(self, challenge: Challenge) -> Player:
        found = await self.players.player(challenge.challenger)
        if found is None:
            raise ChallengeNotPending("the challenger is no longer a player")
        return found

    async def _accept(
        self,
        challenge: Challenge,
        challenger: Player,
        acceptor: Player | None,
        request: Claim | None,
        answer: Callable[[Accepted], T],
    ) -> T:
        """The match, created with the settlement of the challenge and the request's
        ``answer`` of the acceptance: all or nothing."""
        if acceptor is not None and challenge.rated and acceptor.origin == challenger.origin:
            raise SameOrigin("the challenger registered from the acceptor's address")
        setup = _setup(challenger, acceptor, challenge.level, _options(challenge), challenge.rated)
        accepted: list[Challenge] = []

        def settle(match_id: str) -> Settlement:
            done = msgspec.structs.replace(challenge, status="accepted", match_id=match_id)
            accepted.append(done)
            handles = (challenge.challenger, None if acceptor is None else acceptor.handle)
            return Settlement(challenge.id, "accepted", match_id, news_of(done, *handles))

        def answered(created: Created) -> T:
            return answer(Accepted(challenge_view(accepted[-1]), created.match))

        try:
            outcome = await self.seating.add(setup, request, answered, settle=settle)
        except (ChallengeGone, PlayerGone) as gone:
            # A deleted player's challenges end with it.
            raise ChallengeNotPending("the challenge is no longer pending") from gone
        await self._told(challenge.challenger, None if acceptor is None else acceptor.handle)
        return outcome

    async def decline(self, player: Player, challenge_id: str) -> ChallengeView:
        challenge = _pending(await self._found(challenge_id))
        if challenge.opponent != player.handle:
            raise NotYourChallenge("only the player challenged declines a challenge")
        return await self._end(challenge, "declined")

    async def cancel(self, player: Player, challenge_id: str) -> None:
        challenge = _pending(await self._found(challenge_id))
        if challenge.challenger != player.handle:
            raise NotYourChallenge("only its challenger withdraws a challenge")
        await self._end(challenge, "cancelled")

    async def _end(self, challenge: Challenge, status: str) -> ChallengeView:
        done = msgspec.structs.replace(challenge, status=status)
        news = news_of(done, challenge.challenger, challenge.opponent)
        try:
            await self.challenges.settle(Settlement(challenge.id, status, None, news))
        except ChallengeGone as gone:
            raise ChallengeNotPending("the challenge is no longer pending") from gone
        await self._told(challenge.challenger, challenge.opponent)
        return challenge_view(done)

    async def _told(self, *handles: str | None) -> None:
        """Wake this process's followers of the players told (others hear it from the
        store's announcement)."""
        for handle in dict.fromkeys(handles):
            if handle is not None:
                await self.bus.publish(inbox_key(handle), await self.challenges.latest(handle))

    async def stream(
        self, player: Player, after: int, seconds: float
    ) -> AsyncIterator[list[tuple[int, bytes]] | None]:
        """The player's news after ``after`` as it comes, a batch at a time, None for a
        quiet spell (a heartbeat), until ``seconds`` have passed."""
        deadline = self.monotonic() + seconds
        key = inbox_key(player.handle)
        while True:
            news = await self.challenges.inbox(player.handle, after, MAX_EVENTS)
            if news:
                after = news[-1][0]
                yield news
                continue
            left = deadline - self.monotonic()
            if left <= 0:
                return
            if not await self.bus.wait(key, after, min(left, HEARTBEAT_SECONDS)):
                yield None


def _pending(challenge: Challenge) -> Challenge:
    if challenge.status != "pending":
        raise ChallengeNotPending(f"the challenge is {challenge.status}")
    return challenge


def _held(player: Player) -> Seat:
    return Seat("human", name=player.name, player=player.handle)


def _setup(
    challenger: Player,
    rival: Player | None,
    level: str | None,
    rules: dict[str, Any],
    rated: bool,
) -> Setup:
    """The match a challenge makes: the challenger on seat 0, the other on seat 1 (an open
    seat stands for a player still to come)."""
    other = (
        Seat("ai", level) if level is not None else Seat("open") if rival is None else _held(rival)
    )
    return Setup((_held(challenger), other), rules, rated=rated)


def _options(challenge: Challenge) -> dict[str, Any]:
    """The challenge's rules as ``make_rules`` takes them."""
    return {f: getattr(challenge.rules, f) for f in challenge.rules.__struct_fields__}
