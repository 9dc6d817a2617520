"""A match's seats filled: create a match, join or claim a seat, play a finished match
again (a rematch); each once per Idempotency-Key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec

from scopa.contract.views import match_view
from scopa.domain.errors import InvalidSetup, MatchNotActive, SeatNotOpen
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, join, new_match, offer_rematch, rematch_of
from scopa.domain.rated import format_of
from scopa.domain.rng import seeded_ai_secret
from scopa.domain.rules import Rules, make_rules
from scopa.service.answers import Created, Joined, Rematch, Rematched, SeatToken
from scopa.service.callers import Caller, Callers
from scopa.service.changes import Changes
from scopa.service.errors import InvalidToken, SameOrigin
from scopa.service.handles import KEPT_NAME, reserved
from scopa.service.idempotency import LOCAL, Claim, Once, answer_of, caller_scope
from scopa.service.ids import new_match_id, new_seed, new_token, token_hash
from scopa.service.limits import OwnerQuotas
from scopa.service.ports import (
    Change,
    MatchObserver,
    MatchReads,
    MatchRecord,
    Player,
    PlayerGone,
    Settlement,
    Standings,
    VersionConflict,
)

T = TypeVar("T", bound=msgspec.Struct)


@dataclass(frozen=True)
class Setup:
    """A match to create, already in engine terms (cards as ints)."""

    seats: tuple[Seat, ...]
    rules: dict[str, Any] = field(default_factory=dict)  # make_rules' keyword arguments
    seed: int | None = None
    decks: tuple[tuple[int, ...], ...] = ()
    first_dealer: int | None = None
    rated: bool = False


class Seating:
    def __init__(
        self,
        changes: Changes,
        callers: Callers,
        reads: MatchReads,
        once: Once,
        observer: MatchObserver,
        levels: tuple[str, ...],
        standings: Standings | None = None,
    ) -> None:
        self.changes = changes
        self.callers = callers
        self.reads = reads
        self.once = once
        self.observer = observer
        self.levels = levels  # the AI levels seats may have: none without AI
        self.standings = standings

    async def create(
        self,
        setup: Setup,
        key: str | None,
        fingerprint: str,
        *,
        address: str = LOCAL,
        token: str | None = None,
        quotas: OwnerQuotas | None = None,
        player: Player | None = None,
    ) -> Created:
        """A new match, its first human seat ``player``'s if a player creates it;
        QuotaExceeded when it would take its creator over ``quotas``. The key is the
        caller's: ``player``'s, else ``token``'s, else ``address``'s."""
        scope = caller_scope("create", player=player, token=token, address=address)

        async def run(request: Claim | None) -> Created:
            return await self.add(
                setup, request, lambda created: created, quotas=quotas, player=player
            )

        return await self.once.run(scope, key, fingerprint, Created, run)

    async def add(
        self,
        setup: Setup,
        request: Claim | None,
        answer: Callable[[Created], T],
        *,
        quotas: OwnerQuotas | None = None,
        player: Player | None = None,
        settle: Callable[[str], Settlement] | None = None,
    ) -> T:
        """Store the new match; ``answer`` of what create answers is the request's answer,
        stored with it. ``settle``: the challenge the match accepts, of the new match's
        id, stored with it (and settled before ``answer`` is asked)."""
        state, events = self.plan(setup, player)
        match_id = new_match_id()
        tokens = {i: new_token() for i, s in enumerate(setup.seats) if s.kind == "human"}
        now = self.changes.clock()
        record = MatchRecord(match_id, state, now, self.changes.lifecycle.due_at(state, now, now))
        created = Created(
            match=match_view(match_id, state, None, deadline=record.due_at),
            tokens=tuple(SeatToken(seat, token) for seat, token in tokens.items()),
        )
        hashes = {seat: token_hash(token) for seat, token in tokens.items()}
        quota = quotas.of(state) if quotas is not None else None
        async with self.changes.matches.unit_of_work() as uow:
            uow.add(record, events, hashes, quota=quota)
            if settle is not None:
                uow.settle(settle(match_id))
            answered = answer(created)
            uow.keep_answer(answer_of(request, answered))
            await uow.commit()
        for seat, hashed in hashes.items():
            self.changes.recent.remember(record, hashed, seat)
        self.observer.match_created()
        self.changes.changed(match_id, state)
        return answered

    def plan(self, setup: Setup, player: Player | None) -> tuple[MatchState, list[StoredEvent]]:
        """The new match, or InvalidSetup naming every impossible field at once."""
        problems: list[tuple[str, str]] = []
        seats = setup.seats
        problems.extend(
            (f"seats[{i}].name", KEPT_NAME)
            for i, s in enumerate(setup.seats)
            if s.name is not None and reserved(s.name)
        )
        if player is not None:
            seats, refused = _seat_player(seats, player)
            problems.extend(refused)
        if not self.levels:
            problems.extend(
                (f"seats[{i}].kind", "this server has no AI players")
                for i, s in enumerate(setup.seats)
                if s.kind == "ai"
            )
        try:
            rules = make_rules(players=len(setup.seats), **setup.rules)
        except InvalidSetup as refused:
            problems.extend(refused.problems)
            rules = Rules()  # the defaults, so the rest of the setup is checked too
        seeded = setup.seed is not None or bool(setup.decks)
        if setup.rated:
            problems.extend(_unratable(setup, seats, rules))
        seed = setup.seed if setup.seed is not None else new_seed()
        # A seeded match's cards are known to its creator anyway: its AI secret is derived,
        # so the same setup gets the same AI moves on every run and every server.
        ai_secret = seeded_ai_secret(setup.seed, setup.decks) if seeded else new_seed()
        try:
            created = new_match(
                rules,
                seats,
                seed,
                setup.decks,
                setup.first_dealer,
                seeded=seeded,
                ai_secret=ai_secret,
                rated=setup.rated,
            )
        except InvalidSetup as refused:
            problems.extend(p for p in refused.problems if p not in problems)
        if problems:
            raise InvalidSetup(problems)
        return created

    async def join(
        self,
        match_id: str,
        seat: int,
        key: str | None,
        fingerprint: str,
        *,
        name: str | None = None,
        token: str | None = None,
        address: str = LOCAL,
    ) -> Joined:
        """Take an open seat, or claim a reserved one with ``token``, the seat's token in
        the match before (on an open seat a token is not looked at). A player token seats
        its player, on an open seat or on a reserved one the player held before. The key
        is the caller's, as create's is."""
        record = await self.callers.load(match_id)
        player = await self.callers.player_of(token)
        if player is not None and name is not None:
            raise InvalidSetup([("name", "a player's seat shows the player's own name")])
        if name is not None and reserved(name):
            raise InvalidSetup([("name", KEPT_NAME)])
        claim = None if token is None or player is not None else token_hash(token)

        async def run(request: Claim | None) -> Joined:
            return await self._take_seat(
                record, seat, name, claim, request, lambda state, new: Joined(seat, new), player
            )

        scope = caller_scope(f"join:{match_id}:{seat}", player=player, token=token, address=address)
        return await self.once.run(scope, key, fingerprint, Joined, run)

    async def _take_seat(
        self,
        record: MatchRecord,
        seat: int,
        name: str | None,
        claim: str | None,
        request: Claim | None,
        answer: Callable[[MatchState, str], T],
        player: Player | None = None,
    ) -> T:
        """Seat a player (a join or a claim); ``answer`` of the new state and token is
        what the request answers, stored with the change."""
        handle = None if player is None else player.handle

        async def seated(current: MatchRecord, fresh: bool) -> T:
            if self.changes.overdue(current):
                current = await self.changes.passed(current.id)
            if player is not None and current.state.rated:
                await self._distinct_origins(current.state, player)
            state, events = join(
                current.state, seat, name if player is None else player.name, claim, handle
            )
            token = new_token()
            hashed = token_hash(token)
            body = answer(state, token)
            due_at = self.changes.due_at(current, state)
            change = Change(current.id, current.state.version, state, tuple(events), due_at)
            await self.changes.write(change, {seat: hashed}, answer_of(request, body))
            await self.changes.saved(current, state, due_at, hashed, seat)
            self.changes.changed(current.id, state)
            return body

        return await self.changes.until_stored(record.id, record, seated)

    async def _distinct_origins(self, state: MatchState, player: Player) -> None:
        """SameOrigin when a player registered from ``player``'s address holds a seat of
        the rated match already: one cannot rate itself against its second account."""
        others = [s.player for s in state.seats if s.player and s.player != player.handle]
        if others and self.standings is not None:
            origins = await self.standings.origins(others)
            if player.origin in origins.values():
                raise SameOrigin(
                    "a player registered from the same address holds a seat of this rated match"
                )

    async def rematch(
        self,
        caller: Caller,
        key: str | None,
        fingerprint: str,
        *,
        quotas: OwnerQuotas | None = None,
    ) -> Rematch:
        """Play a finished match again: the first call makes the rematch, each later one
        by another seat's token claims that seat's reserved seat in it. The rematch
        counts toward its caller's ``quotas`` as a creation does."""
        seat, hashed = caller.seat, caller.token_hash
        if seat is None or hashed is None:
            raise InvalidToken("a rematch is asked for by a seat: send its token")

        async def run(request: Claim | None) -> Rematch:
            async def rematched(current: MatchRecord, fresh: bool) -> Rematch:
                old = current.state
                if old.status != "finished" or old.dealer is None:
                    raise MatchNotActive("only a finished match that was dealt can be rematched")
                offered = await self.changes.matches.get(old.rematch) if old.rematch else None
                if offered is not None and not _ended_unclaimed(offered.state):
                    try:
                        return await self._take_seat(
                            offered, seat, None, hashed, request, _claimed(offered.id, seat)
                        )
                    except SeatNotOpen as held:
                        raise SeatNotOpen(
                            f"seat {seat} already holds its seat in the rematch {offered.id}"
                        ) from held
                return await self._offer_rematch(current, seat, request, quotas)

            return await self.changes.until_stored(caller.match_id, caller.record, rematched)

        return await self.once.run(f"rematch:{hashed}", key, fingerprint, Rematch, run)

    async def _offer_rematch(
        self, old: MatchRecord, seat: int, request: Claim | None, quotas: OwnerQuotas | None
    ) -> Rematch:
        claims = await self.reads.seat_tokens(old.id)
        match_id = new_match_id()
        # A rematch is unseeded, a fresh secret shuffle: its AI secret is drawn as well.
        state, events = rematch_of(old.state, seat, claims, new_seed(), new_seed())
        offered, offer_events = offer_rematch(old.state, match_id)
        token = new_token()
        hashed = token_hash(token)
        now = self.changes.clock()
        record = MatchRecord(match_id, state, now, self.changes.lifecycle.due_at(state, now, now))
        view = match_view(match_id, state, None, deadline=record.due_at)
        outcome = Rematch(True, Rematched(view, seat, token))
        quota = quotas.of(state) if quotas is not None else None
        # The rematch and its offer on the finished match stand or fall together.
        async with self.changes.matches.unit_of_work() as uow:
            uow.add(record, events, {seat: hashed}, quota=quota)
            uow.change(Change(old.id, old.state.version, offered, tuple(offer_events)))
            uow.keep_answer(answer_of(request, outcome))
            try:
                await uow.commit()
            except PlayerGone as gone:
                # A player of the match was deleted meanwhile, its seat token with it:
                # decided again, its seat in the rematch is open.
                raise VersionConflict(str(gone)) from gone
        self.changes.recent.remember(record, hashed, seat)
        self.observer.match_created()
        await self.changes.saved(old, offered, None)
        self.changes.changed(match_id, state)
        return outcome


def _seat_player(
    seats: tuple[Seat, ...], player: Player
) -> tuple[tuple[Seat, ...], list[tuple[str, str]]]:
    """The seats with the first human one the creating player's."""
    mine = next((i for i, s in enumerate(seats) if s.kind == "human"), None)
    if mine is None:
        return seats, [("seats", "a match created with a player token needs a human seat")]
    if seats[mine].name is not None:
        return seats, [(f"seats[{mine}].name", "the player's seat shows the player's own name")]
    held = Seat("human", name=player.name, player=player.handle)
    return tuple(held if i == mine else s for i, s in enumerate(seats)), []


def _unratable(setup: Setup, seats: tuple[Seat, ...], rules: Rules) -> list[tuple[str, str]]:
    """Why the match cannot be rated; empty when it can."""
    problems: list[tuple[str, str]] = []
    if not any(s.player is not None for s in seats):
        problems.append(("rated", "a rated match is created with a player token"))
    if setup.seed is not None or setup.decks:
        problems.append(("rated", "a rated match is shuffled by the server: no seed or decks"))
    if format_of(len(seats), rules.target) is None:
        problems.append(("rated", "rated matches are of 2 or 4 players, to 11 or to 21"))
    if rules.deal != "scopa":
        # The formats' ratings are Scopa's: a Scopone rating would need formats of its own.
        problems.append(("rated", "rated matches are dealt as scopa, not scopone"))
    if rules.reveal_ai_hands:
        problems.append(("rated", "a rated match shows no AI hands"))
    problems.extend(
        (f"seats[{i}]", "a rated match's human seats are players': leave it open for one")
        for i, s in enumerate(seats)
        if s.kind == "human" and s.player is None
    )
    return problems


def _ended_unclaimed(state: MatchState) -> bool:
    """A rematch that ended (expired, say) before all its players came: a new one may be
    offered in its place."""
    return state.status == "finished" and any(s.kind == "reserved" for s in state.seats)


def _claimed(match_id: str, seat: int) -> Callable[[MatchState, str], Rematch]:
    def answer(state: MatchState, token: str) -> Rematch:
        return Rematch(False, Rematched(match_view(match_id, state, None), seat, token))

    return answer
