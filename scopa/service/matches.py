"""The match use cases: create, join, play, resign, abort, read, and the passing of a
match's moments (``service.lifecycle``); they speak only to the ports.

The store is the only authority, so any number of processes can serve one database. A
change is stored only if the match is still at the version it was decided on; on a lost
race the service reloads and checks again, so the loser gets the answer the new state
deserves, never a double move. Reads always go to the store. A move may start from the
state this process last saw (``service.recent``), which spares it a read: the
version-checked save confirms an acceptance, and a refusal is given only once the match
has been read afresh.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import msgspec

from scopa.contract.events import EventView, for_viewer
from scopa.contract.scoring import deal_score_view, tally_view
from scopa.contract.views import MatchView, fairness, match_view, move_view, seat_moves
from scopa.domain.ai import LEVELS
from scopa.domain.ai.review import Review
from scopa.domain.errors import (
    CannotAbort,
    InvalidMove,
    InvalidSetup,
    MatchNotActive,
    NotYourTurn,
    SeatNotOpen,
)
from scopa.domain.events import DealStarted, Redeal, StoredEvent
from scopa.domain.match import (
    MatchState,
    Seat,
    abort,
    ai_to_play,
    join,
    legal_moves,
    new_match,
    offer_rematch,
    play,
    play_named,
    rematch_of,
    resign,
)
from scopa.domain.moves import Move
from scopa.domain.rules import Rules, make_rules
from scopa.domain.scoring import tally
from scopa.service.answers import (
    Created,
    Hint,
    Joined,
    Lobby,
    Record,
    Rematch,
    Rematched,
    Scores,
    SeatToken,
)
from scopa.service.asked import HINT_POLL_SECONDS, HINT_WAIT_SECONDS, answered
from scopa.service.errors import (
    Busy,
    InvalidToken,
    MatchNotFinished,
    MatchNotFound,
    MoveRefused,
    StaleVersion,
    UnknownLevel,
)
from scopa.service.feed import EventPage, Feed
from scopa.service.idempotency import Claim, Once, answer_of
from scopa.service.ids import (
    decode_cursor,
    encode_cursor,
    is_match_id,
    new_match_id,
    new_seed,
    new_token,
    token_hash,
)
from scopa.service.lifecycle import AUTOPLAY_LEVEL, Lifecycle, autoplays, lapse, lapses
from scopa.service.limits import OwnerQuotas
from scopa.service.ports import (
    AiBacklog,
    AiPlayer,
    Change,
    EventBus,
    HintQueue,
    IdempotencyKeys,
    MatchObserver,
    MatchReads,
    MatchRecord,
    MatchRepository,
    ReviewQueue,
    Unobserved,
    VersionConflict,
)
from scopa.service.recent import RecentMatches
from scopa.service.reviews import Reviews

log = logging.getLogger(__name__)

# A lost race costs one reload; more than a handful in a row means the store misbehaves.
ATTEMPTS = 8
# Announcing a stored change may fail (the database may be what is failing): the answer
# waits on it no longer than this.
PUBLISH_SECONDS = 1.0
# What a change decided on a remembered state may be refused for: only once the match is
# read afresh does a refusal stand.
REFUSALS = (MatchNotActive, NotYourTurn, CannotAbort, StaleVersion, MoveRefused)

# What a seat does to the match: the new state and the events it records.
SeatChange = Callable[[MatchState], tuple[MatchState, list[StoredEvent]]]

T = TypeVar("T", bound=msgspec.Struct)
Rendered = TypeVar("Rendered")
LobbyStatus = Literal["waiting", "active"]


@dataclass(frozen=True)
class Setup:
    """A match to create, already in engine terms (cards as ints)."""

    seats: tuple[Seat, ...]
    rules: dict[str, Any] = field(default_factory=dict)  # make_rules' keyword arguments
    seed: int | None = None
    decks: tuple[tuple[int, ...], ...] = ()
    first_dealer: int | None = None


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


class MatchService:
    def __init__(
        self,
        matches: MatchRepository,
        bus: EventBus,
        *,
        reads: MatchReads,
        keys: IdempotencyKeys,
        ai: AiPlayer | None = None,
        review_queue: ReviewQueue | None = None,
        hint_queue: HintQueue | None = None,
        on_change: Callable[[str], None] | None = None,
        observer: MatchObserver | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        lifecycle: Lifecycle | None = None,
    ) -> None:
        self.matches = matches
        self.observer = observer or Unobserved()
        self.reads = reads
        self.bus = bus
        self.ai = ai
        self.hint_queue = hint_queue
        self.monotonic = monotonic
        self.on_change = on_change
        self.clock = clock
        self.lifecycle = lifecycle or Lifecycle()
        self.once = Once(keys)
        self.feed = Feed(reads, bus, self._last_seq, monotonic)
        # With a queue, reviews are asked of the processes that run AI, not computed here.
        self.reviews = Reviews(matches, reads, ai, review_queue, monotonic)
        self.recent = RecentMatches()

    # -- who is asking --------------------------------------------------------------

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
        """The match must exist before a token can be judged against it.

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

    # -- changes ----------------------------------------------------------------------

    async def create(
        self,
        setup: Setup,
        key: str | None,
        fingerprint: str,
        *,
        quotas: OwnerQuotas | None = None,
    ) -> Created:
        """A new match; QuotaExceeded when it would take its creator over ``quotas``."""

        async def run(request: Claim | None) -> Created:
            state, events = self._new_state(setup)
            match_id = new_match_id()
            tokens = {i: new_token() for i, s in enumerate(setup.seats) if s.kind == "human"}
            now = self.clock()
            record = MatchRecord(match_id, state, now, self.lifecycle.due_at(state, now, now))
            created = Created(
                match=match_view(match_id, state, None, deadline=record.due_at),
                tokens=tuple(SeatToken(seat, token) for seat, token in tokens.items()),
            )
            hashes = {seat: token_hash(token) for seat, token in tokens.items()}
            quota = quotas.of(state) if quotas is not None else None
            await self.matches.create(
                record, events, hashes, answer_of(request, created), quota=quota
            )
            for seat, hashed in hashes.items():
                self.recent.remember(record, hashed, seat)
            self.observer.match_created()
            self._changed(match_id, state)
            return created

        return await self.once.run("create", key, fingerprint, Created, run)

    def _new_state(self, setup: Setup) -> tuple[MatchState, list[StoredEvent]]:
        """The new match, or InvalidSetup naming every impossible field at once."""
        problems: list[tuple[str, str]] = []
        if not self.ai_levels:
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
        seed = setup.seed if setup.seed is not None else new_seed()
        try:
            created = new_match(
                rules,
                setup.seats,
                seed,
                setup.decks,
                setup.first_dealer,
                seeded=seeded,
                ai_secret=new_seed(),
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
    ) -> Joined:
        """Take an open seat, or claim a reserved one with ``token``, the seat's token in
        the match before (on an open seat a token is not looked at)."""
        record = await self.load(match_id)
        claim = None if token is None else token_hash(token)

        async def run(request: Claim | None) -> Joined:
            return await self._take_seat(
                record, seat, name, claim, request, lambda state, new: Joined(seat, new)
            )

        return await self.once.run(f"join:{match_id}:{seat}", key, fingerprint, Joined, run)

    async def _take_seat(
        self,
        record: MatchRecord,
        seat: int,
        name: str | None,
        claim: str | None,
        request: Claim | None,
        answer: Callable[[MatchState, str], T],
    ) -> T:
        """Seat a player (a join or a claim); ``answer`` of the new state and token is
        what the request answers, stored with the change."""

        async def seated(current: MatchRecord, fresh: bool) -> T:
            if self._overdue(current):
                current = await self._passed(current.id)
            state, events = join(current.state, seat, name, claim)
            token = new_token()
            hashed = token_hash(token)
            body = answer(state, token)
            due_at = self._due_at(current, state)
            await self.matches.save(
                current.id,
                current.state.version,
                state,
                events,
                {seat: hashed},
                answer_of(request, body),
                due_at=due_at,
            )
            await self._saved(current, state, due_at, hashed, seat)
            self._changed(current.id, state)
            return body

        return await self._until_stored(record.id, record, seated)

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
                offered = await self.matches.get(old.rematch) if old.rematch else None
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

            return await self._until_stored(caller.match_id, caller.record, rematched)

        return await self.once.run(f"rematch:{hashed}", key, fingerprint, Rematch, run)

    async def _offer_rematch(
        self, old: MatchRecord, seat: int, request: Claim | None, quotas: OwnerQuotas | None
    ) -> Rematch:
        claims = await self.reads.seat_tokens(old.id)
        match_id = new_match_id()
        state, events = rematch_of(old.state, seat, claims, new_seed(), new_seed())
        offered, offer_events = offer_rematch(old.state, match_id)
        token = new_token()
        hashed = token_hash(token)
        now = self.clock()
        record = MatchRecord(match_id, state, now, self.lifecycle.due_at(state, now, now))
        view = match_view(match_id, state, None, deadline=record.due_at)
        outcome = Rematch(True, Rematched(view, seat, token))
        await self.matches.create_rematch(
            Change(old.id, old.state.version, offered, tuple(offer_events)),
            record,
            events,
            {seat: hashed},
            answer_of(request, outcome),
            quota=quotas.of(state) if quotas is not None else None,
        )
        self.recent.remember(record, hashed, seat)
        self.observer.match_created()
        await self._saved(old, offered, None)
        self._changed(match_id, state)
        return outcome

    async def play(
        self,
        caller: Caller,
        card: int,
        capture: Sequence[int] | None,
        expected_version: int | None,
        key: str | None,
        fingerprint: str,
    ) -> MatchView:
        """Play for the caller's seat: not active, not your turn, stale, then illegal."""
        seat = _seat_of(caller, "playing")
        return await self._change(
            caller,
            lambda before: _play(before, seat, card, capture, expected_version),
            key,
            fingerprint,
            played=True,
        )

    async def resign(
        self, caller: Caller, expected_version: int | None, key: str | None, fingerprint: str
    ) -> MatchView:
        """The caller's team gives the match up: not active, then stale."""
        seat = _seat_of(caller, "resigning")
        return await self._change(
            caller,
            lambda before: _at(before, expected_version, resign(before, seat)),
            key,
            fingerprint,
        )

    async def abort(
        self, caller: Caller, expected_version: int | None, key: str | None, fingerprint: str
    ) -> MatchView:
        """Call the match off before any human played: cannot abort, then stale."""
        _seat_of(caller, "aborting")
        return await self._change(
            caller, lambda before: _at(before, expected_version, abort(before)), key, fingerprint
        )

    async def _change(
        self,
        caller: Caller,
        change: SeatChange,
        key: str | None,
        fingerprint: str,
        *,
        played: bool = False,
    ) -> MatchView:
        """A seat's change to the match, answered with its view, once per Idempotency-Key;
        ``played``: the change is a card played (a resign or an abort is not a move).

        A moment the match has passed comes first: a move after its turn's deadline
        meets the timeout, not the turn."""
        seat, scope, match_id = caller.seat, caller.token_hash, caller.match_id
        assert scope is not None

        async def run(request: Claim | None) -> MatchView:
            async def changed(current: MatchRecord, fresh: bool) -> MatchView:
                if self._overdue(current):
                    current, fresh = await self._passed(match_id), True
                before = current.state
                try:
                    state, events = change(before)
                except REFUSALS:
                    if fresh:
                        raise
                    # Decided on a remembered state: only the stored one may refuse.
                    raise VersionConflict(match_id) from None
                due_at = self._due_at(current, state)
                view = match_view(match_id, state, seat, deadline=due_at)
                await self.matches.save(
                    match_id,
                    before.version,
                    state,
                    events,
                    None,
                    answer_of(request, view),
                    due_at=due_at,
                )
                if played:
                    self.observer.move_played("human")
                await self._saved(current, state, due_at)
                self._changed(match_id, state)
                return view

            return await self._until_stored(match_id, caller.record, changed, caller.fresh)

        return await self.once.run(scope, key, fingerprint, MatchView, run)

    async def play_ai_turn(self, match_id: str) -> bool:
        """Play the AI seat's turn, if an AI is to play; whether a move was stored.

        Several processes may do this for one match at once: the store takes the first
        move decided on the version, and the others are told no.
        """
        record = await self.matches.get(match_id) if self.ai is not None else None
        if record is None:
            return False
        before = record.state
        seat = ai_to_play(before)
        if seat is None:
            return False
        level = before.seats[seat].level or "hard"
        state, events = play(before, seat, await self._ai_choice(before, seat, level))
        try:
            await self._store(record, state, events)
        except VersionConflict:
            return False
        self.observer.move_played("ai")
        self._changed(match_id, state)
        return True

    async def advance_ai(self, match_id: str) -> None:
        """Play the AI seats' turns until a human's turn, the end, or a lost race (then
        the winner's move is the one stored)."""
        while await self.play_ai_turn(match_id):
            pass

    async def _ai_choice(self, state: MatchState, seat: int, level: str) -> Move:
        """The move ``level`` plays for ``seat``."""
        try:
            if self.ai is not None:
                move, _ = await self.ai.decide(state, seat, level, _ai_seed(state))
                return move
        except (asyncio.CancelledError, VersionConflict):
            raise
        except Exception:
            # A failing AI must not leave the match stuck: log it and play a legal move.
            log.exception("AI %s failed on seat %d; playing the first legal move", level, seat)
        return legal_moves(state)[0]

    # -- moments ----------------------------------------------------------------------

    async def enforce(self, match_id: str) -> None:
        """Make the change the match's passed moment calls for, if it is still due: expire
        it, time its turn out (under autoplay, the hard AI's move) or abandon it.

        Any number of processes may try at once: the store takes the first change decided
        on the version, and the others reload and find the moment gone."""
        await self._passed(match_id)

    async def due(self, limit: int) -> list[str]:
        """Matches whose moment has passed, longest overdue first."""
        return await self.reads.due(self.clock(), limit)

    async def _passed(self, match_id: str) -> MatchRecord:
        """``enforce``, answering the match as it then stands."""

        async def passed(record: MatchRecord, fresh: bool) -> MatchRecord:
            if not self._overdue(record):
                return record
            before = record.state
            seat = autoplays(before)
            move = None if seat is None else await self._ai_choice(before, seat, AUTOPLAY_LEVEL)
            state, events = lapse(before, move)
            stored = await self._store(record, state, events)
            if move is not None:
                self.observer.move_played("ai")  # the autoplay decided it, not the human
            self._changed(match_id, state)
            return stored

        return await self._until_stored(match_id, None, passed)

    async def _until_stored(
        self,
        match_id: str,
        record: MatchRecord | None,
        decide: Callable[[MatchRecord, bool], Awaitable[T]],
        fresh: bool = False,
    ) -> T:
        """``decide`` on the match (``record``, else as stored; ``fresh``: just read from
        the store) until what it decided is stored: a VersionConflict (another change came
        first) reloads the match and decides again, ATTEMPTS times, then Busy."""
        for _ in range(ATTEMPTS):
            if record is None:
                record, fresh = await self.load(match_id), True
            try:
                return await decide(record, fresh)
            except VersionConflict:
                record = None
        raise Busy("the match kept changing; try again")

    async def _store(
        self, record: MatchRecord, state: MatchState, events: list[StoredEvent]
    ) -> MatchRecord:
        """A change the server makes itself (no token, no key), saved at the version it was
        decided on, else VersionConflict; the match as now stored."""
        due_at = self._due_at(record, state)
        await self.matches.save(record.id, record.state.version, state, events, due_at=due_at)
        await self._saved(record, state, due_at)
        return msgspec.structs.replace(record, state=state, due_at=due_at)

    def _overdue(self, record: MatchRecord) -> bool:
        return record.due_at is not None and record.due_at <= self.clock() and lapses(record.state)

    def _due_at(self, record: MatchRecord, state: MatchState) -> float | None:
        """The next moment of ``state``, a change to ``record`` being stored now."""
        return self.lifecycle.due_at(state, record.created_at, self.clock())

    # -- reads ------------------------------------------------------------------------

    def view(self, caller: Caller) -> MatchView:
        record = caller.record
        return match_view(caller.match_id, record.state, caller.seat, deadline=record.due_at)

    async def events(self, caller: Caller, after: int, wait: float) -> EventPage:
        return await self.feed.page(caller.match_id, caller.seat, _seen(caller, after), wait)

    async def stream(
        self, caller: Caller, after: int, seconds: float, render: Callable[[EventView], Rendered]
    ) -> AsyncIterator[Sequence[Rendered] | None]:
        """The caller's events as they happen (``Feed.stream``), each as ``render`` makes
        it, counted open from its first read to its end."""
        finished = caller.record.state.status == "finished"
        events = self.feed.stream(
            caller.match_id, caller.seat, _seen(caller, after), seconds, finished, render
        )
        self.observer.stream_opened()
        try:
            # Closed with this stream, not whenever the collector gets to it.
            async with aclosing(events):
                async for event in events:
                    yield event
        finally:
            self.observer.stream_closed()

    def close_streams(self) -> None:
        """At shutdown: streams end, so their clients reconnect to another process."""
        self.feed.close()

    async def _last_seq(self, match_id: str) -> int:
        return (await self.load(match_id)).state.seq

    async def scores(self, caller: Caller) -> Scores:
        state = caller.record.state
        current = None
        if state.status == "active":
            current = tally_view(tally(state.rules, state.deal, state.piles, state.sweeps))
        deal_scores = tuple(map(deal_score_view, state.deal_scores))
        return Scores(state.scores, deal_scores, state.winner, current)

    @property
    def ai_levels(self) -> tuple[str, ...]:
        """The levels AI seats and hints may have: this process's AI's, or every level
        when the processes that run AI are asked (``hint_queue``); none without AI."""
        if self.ai is not None:
            return self.ai.levels
        return LEVELS if self.hint_queue is not None else ()

    def check_hint(self, caller: Caller, level: str) -> int:
        """The seat ``hint`` would ask for, or the refusal it would give; the AI itself is
        not asked."""
        if caller.seat is None:
            raise InvalidToken("a hint is for a seat: send its token")
        if level not in self.ai_levels:
            levels = ", ".join(self.ai_levels) or "none"
            raise UnknownLevel(f"unknown level {level!r}: one of {levels}")
        state = caller.record.state
        if state.status != "active":
            raise MatchNotActive(f"the match is {state.status}")
        if state.turn != caller.seat:
            raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {caller.seat}'s")
        return caller.seat

    async def hint(self, caller: Caller, level: str) -> Hint:
        seat = self.check_hint(caller, level)
        state = caller.record.state
        if self.ai is not None:
            move, reason = await self.ai.decide(state, seat, level, _ai_seed(state))
        else:
            assert self.hint_queue is not None  # else no level passes check_hint
            move, reason = await self._asked_hint(
                self.hint_queue, caller.match_id, state, seat, level
            )
        view = move_view(state, move)
        return Hint(view.card, view.capture, view.sweep, level, reason)

    async def _asked_hint(
        self, queue: HintQueue, match_id: str, state: MatchState, seat: int, level: str
    ) -> tuple[Move, str]:
        """The hint decided by a process that runs AI. Its request is deleted however this
        ends: answered, given up, or cancelled as the client went away (then, unless a
        worker started on it, nobody decides it)."""
        job = await queue.ask_hint(match_id, state, seat, level)
        try:
            return await answered(
                lambda: queue.hint_answer(job),
                lambda: queue.hint_held(job),
                self.reads.ai_capacity,
                self.monotonic,
                lambda: self.bus.wait(job, 0, HINT_POLL_SECONDS),
                HINT_WAIT_SECONDS,
            )
        finally:
            await asyncio.shield(queue.drop_hint(job))

    async def compute_hint(self, job: str) -> None:
        """Decide a hint asked of the processes that run AI (``hint_queue``), in one."""
        # Wired only in a process that runs AI, which has both.
        assert self.ai is not None
        assert self.hint_queue is not None
        asked = await self.hint_queue.hint_job(job)
        if asked is None:
            return  # its client went away
        state, seat, level = asked
        move, reason = await self.ai.decide(state, seat, level, _ai_seed(state))
        await self.hint_queue.answer_hint(job, move, reason)

    async def review(self, caller: Caller, seat: int, *, compute: bool = True) -> Review | None:
        """The expert's judgement of each card ``seat`` played in the finished match;
        without ``compute``, only the refusal it would meet (None)."""
        if not compute:
            self.reviews.check(caller.record, seat)
            return None
        return await self.reviews.of(caller.record, seat)

    async def compute_review(self, job: tuple[str, int]) -> None:
        """Compute and keep the review of (match, seat) asked of the processes that run AI
        (``review_queue``), in one of them."""
        await self.reviews.compute(*job)

    async def record(self, caller: Caller) -> Record:
        """A finished match whole: the seed, every deck and every hand."""
        state = caller.record.state
        if state.status != "finished":
            raise MatchNotFinished(f"the match is {state.status}: its record is for the end")
        stored = await self.reads.events(caller.match_id, 0, state.seq)
        revealed = fairness(state)
        return Record(
            match=match_view(caller.match_id, state, None),
            seed=None if revealed is None else revealed.seed,
            # Matches stored before the decks were kept in the log list none.
            decks=tuple(e.deck for e in stored if isinstance(e, Redeal | DealStarted) and e.deck),
            first_dealer=state.first_dealer,
            events=tuple(for_viewer(e, None, every_hand=True) for e in stored),
        )

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

    async def ready(self) -> bool:
        """Raise if the database does not answer; whether any process can play AI turns
        (API.md: missing AI capacity is told, not a reason to take this one out)."""
        await self.reads.ping()
        return await self.ai_capacity() > 0

    async def ai_capacity(self) -> int:
        return await self.reads.ai_capacity()

    async def ai_backlog(self) -> AiBacklog:
        return await self.reads.ai_backlog()

    async def active_matches(self) -> int:
        return await self.reads.active_count()

    # -- after a change -----------------------------------------------------------------

    async def _saved(
        self,
        before: MatchRecord,
        state: MatchState,
        due_at: float | None,
        token_hash: str | None = None,
        seat: int | None = None,
    ) -> None:
        """After a save: remember the match as saved, note an ending, wake its waiters."""
        saved = msgspec.structs.replace(before, state=state, due_at=due_at)
        self.recent.remember(saved, token_hash, seat)
        if state.status == "finished" and before.state.status != "finished":
            self.observer.match_finished(state.end_reason or "score")
        await self._publish(before.id, state)

    async def _publish(self, match_id: str, state: MatchState) -> None:
        # The change is stored: a lost wake-up only delays waiters until their timer.
        try:
            async with asyncio.timeout(PUBLISH_SECONDS):
                await self.bus.publish(match_id, state.seq)
        except Exception:
            log.warning("could not announce match %s seq %d", match_id, state.seq, exc_info=True)

    def _changed(self, match_id: str, state: MatchState) -> None:
        if self.on_change is not None and ai_to_play(state) is not None:
            self.on_change(match_id)


def _seen(caller: Caller, after: int) -> int:
    """A seq past the match's latest cannot have been seen: the caller resumes from the
    latest (what a follower waits for is the next event, whatever it claimed)."""
    return min(after, caller.record.state.seq)


def _seat_of(caller: Caller, doing: str) -> int:
    if caller.seat is None or caller.token_hash is None:
        raise InvalidToken(f"{doing} needs a seat token")
    return caller.seat


def _play(
    before: MatchState,
    seat: int,
    card: int,
    capture: Sequence[int] | None,
    expected_version: int | None,
) -> tuple[MatchState, list[StoredEvent]]:
    """The move's outcome, or the first refusal: not active, not your turn, stale, illegal."""
    if before.status != "active":
        raise MatchNotActive(f"the match is {before.status}")
    if before.turn != seat:
        raise NotYourTurn(f"it is seat {before.turn}'s turn, not seat {seat}'s")
    _check_version(before, expected_version)
    try:
        return play_named(before, seat, card, capture)
    except InvalidMove as exc:
        raise MoveRefused(str(exc), seat_moves(before, seat)) from exc


def _at(
    before: MatchState,
    expected_version: int | None,
    outcome: tuple[MatchState, list[StoredEvent]],
) -> tuple[MatchState, list[StoredEvent]]:
    """A change the rules allow (they refuse first), if the match is still at the version
    the request expects."""
    _check_version(before, expected_version)
    return outcome


def _check_version(state: MatchState, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != state.version:
        raise StaleVersion(
            f"the request expects version {expected_version}; "
            f"the match is at version {state.version}"
        )


def _ended_unclaimed(state: MatchState) -> bool:
    """A rematch that ended (expired, say) before all its players came: a new one may be
    offered in its place."""
    return state.status == "finished" and any(s.kind == "reserved" for s in state.seats)


def _claimed(match_id: str, seat: int) -> Callable[[MatchState, str], Rematch]:
    def answer(state: MatchState, token: str) -> Rematch:
        return Rematch(False, Rematched(match_view(match_id, state, None), seat, token))

    return answer


def _ai_seed(state: MatchState) -> int:
    """Deterministic per match and version, so a retried decision is the same decision.

    Drawn from the match's AI secret, never from its generator, whose state decides the
    shuffles to come; a match stored before it had one keeps its generator, as then."""
    secret = state.ai_secret or state.rng
    return (secret ^ (state.version * 0x9E3779B97F4A7C15)) & ((1 << 63) - 1)
