"""The match use cases: create, join, play, read; they speak only to the ports.

The store is the only authority, so any number of processes can serve one database. A
change is stored only if the match is still at the version it was decided on; on a lost
race the service reloads and checks again, so the loser gets the answer the new state
deserves, never a double move. Reads always go to the store. A move may start from the
state this process last saw (``domain.recent``), which spares it a read: the
version-checked save confirms an acceptance, and a refusal is given only once the match
has been read afresh.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import logging
import math
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import msgspec

from domain.errors import (
    IllegalMove,
    InvalidMove,
    InvalidSetup,
    MatchNotActive,
    NotYourTurn,
    ScopaError,
)
from domain.events import EventView, MatchFinished, StoredEvent, for_viewer
from domain.match import MatchState, Seat, join, legal_moves, new_match, play, resolve
from domain.moves import Move
from domain.ports import (
    EventBus,
    Idempotency,
    IdempotencyConflict,
    MatchRecord,
    MatchStore,
    StoredAnswer,
    VersionConflict,
)
from domain.recent import RecentMatches
from domain.rules import Rules, make_rules
from domain.scoring import DealScore, Tally, tally
from domain.views import MatchView, MoveView, match_view, move_view, seat_moves

log = logging.getLogger(__name__)

MAX_EVENTS = 500
MAX_WAIT = 30.0
# A lost race costs one reload; more than a handful in a row means the store misbehaves.
ATTEMPTS = 8
# Proxies drop connections that stay silent; a comment this often keeps a stream open.
HEARTBEAT_SECONDS = 15.0
# After a request's own work, two calls may follow that are allowed to fail: letting go
# of the idempotency key when the request failed, and announcing a stored change. The
# database they reach may be the very thing failing: the answer waits on neither longer.
FOLLOW_UP_SECONDS = 1.0
# A key that a failed request could not let go of (the database was away) is let go of
# once the database is back, so that a retry is not told for the claim's whole lifetime
# that the first request still runs.
RELEASE_RETRY_SECONDS = 1.0
RELEASE_RETRIES = 60
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{22}")
# Cursors are unpadded url-safe base64 of (created_at, id).
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,400}$"
_CURSOR = re.compile(CURSOR_PATTERN)
_SEED_BITS = 63

T = TypeVar("T")


class ServiceError(ScopaError):
    """A request the service refuses for reasons outside the game's rules."""


class MatchNotFound(ServiceError):
    pass


class InvalidToken(ServiceError):
    pass


class StaleVersion(ServiceError):
    pass


class IdempotencyKeyReused(ServiceError):
    pass


class IdempotencyKeyInFlight(ServiceError):
    pass


class UnknownLevel(ServiceError):
    pass


class InvalidCursor(ServiceError):
    pass


class MoveRefused(IllegalMove):
    """An illegal move, with the moves the seat could have made."""

    def __init__(self, detail: str, legal: tuple[MoveView, ...]) -> None:
        super().__init__(detail)
        self.legal_moves = legal


class Busy(ServiceError):
    """The match kept changing under the request; retrying later will do."""


# Wire answers of the use cases. The service encodes them itself because the first
# answer to an idempotent request is stored, byte for byte, with the change it made.


class SeatToken(msgspec.Struct, frozen=True):
    seat: int
    token: str


class Created(msgspec.Struct, frozen=True):
    match: MatchView
    tokens: tuple[SeatToken, ...]


class Joined(msgspec.Struct, frozen=True):
    seat: int
    token: str


class EventPage(msgspec.Struct, frozen=True):
    events: tuple[EventView, ...]
    last_seq: int


class Scores(msgspec.Struct, frozen=True):
    scores: tuple[int, ...]
    deal_scores: tuple[DealScore, ...]
    winner: int | None
    current: Tally | None


class Hint(msgspec.Struct, frozen=True):
    card: str
    capture: tuple[str, ...]
    sweep: bool
    level: str
    reason: str


class Lobby(msgspec.Struct, frozen=True):
    matches: tuple[MatchView, ...]
    next_cursor: str | None


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


class AiPlayer(Protocol):
    """The AI, wherever it runs (a worker pool in production)."""

    levels: tuple[str, ...]

    async def decide(
        self, state: MatchState, seat: int, level: str, seed: int
    ) -> tuple[Move, str]: ...


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def ai_to_play(state: MatchState) -> int | None:
    """The AI seat whose turn it is, if any."""
    if state.status != "active" or state.turn is None:
        return None
    return state.turn if state.seats[state.turn].kind == "ai" else None


def _encode_cursor(record: MatchRecord) -> str:
    raw = msgspec.json.encode((record.created_at, record.id))
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[float, str]:
    if not _CURSOR.fullmatch(cursor):
        raise InvalidCursor("the cursor is not one this server gave out")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, match_id = msgspec.json.decode(raw, type=tuple[float, str])
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise InvalidCursor("the cursor is not one this server gave out") from exc
    # It reaches the database: only what a real cursor could hold (no NUL for Postgres).
    if not (math.isfinite(created_at) and _MATCH_ID.fullmatch(match_id)):
        raise InvalidCursor("the cursor is not one this server gave out")
    return created_at, match_id


class MatchService:
    def __init__(
        self,
        store: MatchStore,
        bus: EventBus,
        *,
        ai: AiPlayer | None = None,
        on_change: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.bus = bus
        self.ai = ai
        self.on_change = on_change
        self.clock = clock
        self._releasing: set[asyncio.Task[None]] = set()
        self.recent = RecentMatches()

    # -- who is asking --------------------------------------------------------------

    async def load(self, match_id: str) -> MatchRecord:
        # Ids are random url-safe strings of one length: anything else is simply unknown.
        record = await self.store.get(match_id) if _MATCH_ID.fullmatch(match_id) else None
        if record is None:
            # Not echoing the id: it is whatever the caller put in the path.
            raise MatchNotFound("no such match")
        self.recent.remember(record)
        return record

    async def caller(
        self, match_id: str, token: str | None, *, required: bool = False, recent: bool = False
    ) -> Caller:
        """404 before 401: the match must exist before a token can be judged against it.

        ``recent``: the match as this process last saw it will do (for a move, which
        confirms it), when the token's seat is known."""
        if token is None:
            record = await self.load(match_id)
            if required:
                raise InvalidToken("this route needs a seat token: Authorization: Bearer ...")
            return Caller(record, None, None)
        hashed = token_hash(token)
        if recent:
            seen = self.recent.seat_of(match_id, hashed)
            if seen is not None:
                return Caller(seen[0], seen[1], hashed, fresh=False)
        found = (
            await self.store.get_for_token(match_id, hashed)
            if _MATCH_ID.fullmatch(match_id)
            else None
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
        if token is not None and not await self.store.token_known(token_hash(token)):
            raise InvalidToken("the token is not a seat token of any match")

    # -- changes ----------------------------------------------------------------------

    async def create(self, setup: Setup, key: str | None, fingerprint: str) -> Created:
        async def run(request: Idempotency | None) -> Created:
            state, events = self._new_state(setup)
            match_id = secrets.token_urlsafe(16)
            tokens = {
                i: secrets.token_urlsafe(32) for i, s in enumerate(setup.seats) if s.kind == "human"
            }
            created = Created(
                match=match_view(match_id, state, None),
                tokens=tuple(SeatToken(seat, token) for seat, token in tokens.items()),
            )
            record = MatchRecord(match_id, state, state, self.clock())
            hashes = {seat: token_hash(token) for seat, token in tokens.items()}
            answer = self._answer(request, 201, created, f"/v1/matches/{match_id}")
            await self.store.create(record, events, hashes, answer)
            for seat, hashed in hashes.items():
                self.recent.remember(record, hashed, seat)
            self._changed(match_id, state)
            return created

        return await self._once("create", key, fingerprint, Created, run)

    def _new_state(self, setup: Setup) -> tuple[MatchState, list[StoredEvent]]:
        """The new match, or InvalidSetup naming every impossible field at once."""
        problems: list[tuple[str, str]] = []
        if self.ai is None:
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
        seed = setup.seed if setup.seed is not None else secrets.randbits(_SEED_BITS)
        try:
            created = new_match(rules, setup.seats, seed, setup.decks, setup.first_dealer)
        except InvalidSetup as refused:
            problems.extend(p for p in refused.problems if p not in problems)
        if problems:
            raise InvalidSetup(problems)
        return created

    async def join(self, match_id: str, seat: int, key: str | None, fingerprint: str) -> Joined:
        record = await self.load(match_id)

        async def run(request: Idempotency | None) -> Joined:
            current = record
            for _ in range(ATTEMPTS):
                state, events = join(current.state, seat)
                token = secrets.token_urlsafe(32)
                hashed = token_hash(token)
                joined = Joined(seat, token)
                try:
                    await self.store.save(
                        match_id,
                        current.state.version,
                        state,
                        events,
                        {seat: hashed},
                        self._answer(request, 200, joined),
                    )
                except VersionConflict:
                    current = await self.load(match_id)
                    continue
                await self._saved(current, state, hashed, seat)
                self._changed(match_id, state)
                return joined
            raise Busy("the match kept changing; try again")

        return await self._once(f"join:{match_id}:{seat}", key, fingerprint, Joined, run)

    async def play(
        self,
        caller: Caller,
        card: int,
        capture: Sequence[int] | None,
        expected_version: int | None,
        key: str | None,
        fingerprint: str,
    ) -> MatchView:
        """Play for the caller's seat, checking in the order of API.md (after 404/401/400)."""
        seat = caller.seat
        if seat is None or caller.token_hash is None:
            raise InvalidToken("playing needs a seat token")
        match_id = caller.match_id

        async def run(request: Idempotency | None) -> MatchView:
            current, fresh = caller.record, caller.fresh
            for _ in range(ATTEMPTS):
                before = current.state
                try:
                    state, events = _play(before, seat, card, capture, expected_version)
                except (MatchNotActive, NotYourTurn, StaleVersion, MoveRefused):
                    if fresh:
                        raise
                    # Decided on a remembered state: only the stored one may refuse.
                    current, fresh = await self.load(match_id), True
                    continue
                view = match_view(match_id, state, seat)
                try:
                    await self.store.save(
                        match_id,
                        before.version,
                        state,
                        events,
                        None,
                        self._answer(request, 200, view),
                    )
                except VersionConflict:
                    current, fresh = await self.load(match_id), True
                    continue
                await self._saved(current, state)
                self._changed(match_id, state)
                return view
            raise Busy("the match kept changing; try again")

        return await self._once(caller.token_hash, key, fingerprint, MatchView, run)

    async def advance_ai(self, match_id: str) -> None:
        """Play the AI seats' turns until a human's turn or the end.

        Several processes may do this for one match at once: the store takes the first
        move decided on each version, the others reload and look again.
        """
        if self.ai is None:
            return
        while True:
            record = await self.store.get(match_id)
            if record is None:
                return
            before = record.state
            seat = ai_to_play(before)
            if seat is None:
                return
            level = before.seats[seat].level or "hard"
            state, events = await self._ai_move(before, seat, level)
            try:
                await self.store.save(match_id, before.version, state, events)
            except VersionConflict:
                continue
            await self._saved(record, state)

    async def _ai_move(
        self, state: MatchState, seat: int, level: str
    ) -> tuple[MatchState, list[StoredEvent]]:
        assert self.ai is not None
        try:
            move, _ = await self.ai.decide(state, seat, level, _ai_seed(state))
            return play(state, seat, move)
        except (asyncio.CancelledError, VersionConflict):
            raise
        except Exception:
            # A failing AI must not leave the match stuck: log it and play a legal move.
            log.exception("AI %s failed on seat %d; playing the first legal move", level, seat)
            return play(state, seat, legal_moves(state)[0])

    # -- reads ------------------------------------------------------------------------

    def view(self, caller: Caller) -> MatchView:
        return match_view(caller.match_id, caller.record.state, caller.seat)

    async def events(self, caller: Caller, after: int, wait: float) -> EventPage:
        """Events past ``after``, holding up to ``wait`` seconds until there is one."""
        deadline = time.monotonic() + min(wait, MAX_WAIT)
        match_id = caller.match_id
        while True:
            stored = await self.store.events(match_id, after, MAX_EVENTS)
            remaining = deadline - time.monotonic()
            if stored or remaining <= 0:
                break
            # The bus wakes the wait when news may have come (and sooner while it cannot
            # hear every change): a waiting long poll costs the database nothing.
            await self.bus.wait(match_id, after, remaining)
        # Read after the events, so last_seq is never behind what the page holds.
        last_seq = (await self.load(match_id)).state.seq
        return EventPage(tuple(for_viewer(e, caller.seat) for e in stored), last_seq)

    async def stream(
        self, caller: Caller, after: int, seconds: float
    ) -> AsyncIterator[EventView | None]:
        """Events past ``after`` as they happen, for ``seconds`` or until the match ends.

        ``None`` marks a quiet spell, so the transport can show the line is alive.
        """
        deadline = time.monotonic() + seconds
        quiet_since = time.monotonic()
        match_id = caller.match_id
        finished = caller.record.state.status == "finished"
        while True:
            stored = await self.store.events(match_id, after, MAX_EVENTS)
            for event in stored:
                yield for_viewer(event, caller.seat)
                after = event.seq
                if isinstance(event, MatchFinished):
                    return
            if stored:
                quiet_since = time.monotonic()
                continue
            now = time.monotonic()
            if finished or now >= deadline:
                return
            if now - quiet_since >= HEARTBEAT_SECONDS:
                quiet_since = now
                yield None
            wake_by = min(deadline, quiet_since + HEARTBEAT_SECONDS)
            await self.bus.wait(match_id, after, wake_by - now)

    async def scores(self, caller: Caller) -> Scores:
        state = caller.record.state
        current = None
        if state.status == "active":
            current = tally(state.rules, state.deal, state.piles, state.sweeps)
        return Scores(state.scores, state.deal_scores, state.winner, current)

    async def hint(self, caller: Caller, level: str) -> Hint:
        if caller.seat is None:
            raise InvalidToken("a hint is for a seat: send its token")
        if self.ai is None or level not in self.ai.levels:
            levels = ", ".join(self.ai.levels) if self.ai else "none"
            raise UnknownLevel(f"unknown level {level!r}: one of {levels}")
        state = caller.record.state
        if state.status != "active":
            raise MatchNotActive(f"the match is {state.status}")
        if state.turn != caller.seat:
            raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {caller.seat}'s")
        move, reason = await self.ai.decide(state, caller.seat, level, _ai_seed(state))
        view = move_view(state, move)
        return Hint(view.card, view.capture, view.sweep, level, reason)

    async def lobby(self, limit: int, cursor: str | None) -> Lobby:
        after = _decode_cursor(cursor) if cursor is not None else None
        # One more than asked tells whether another page exists.
        records = await self.store.waiting(limit + 1, after)
        page = records[:limit]
        more = len(records) > limit
        return Lobby(
            tuple(match_view(r.id, r.state, None) for r in page),
            _encode_cursor(page[-1]) if more else None,
        )

    async def ready(self) -> None:
        await self.store.ping()

    # -- plumbing ---------------------------------------------------------------------

    async def _once(
        self,
        scope: str,
        key: str | None,
        fingerprint: str,
        answer_type: type[T],
        run: Callable[[Idempotency | None], Awaitable[T]],
    ) -> T:
        """Run an idempotent request once per key: a retry with the same body gets the first
        answer again; a failure releases the key, as failed answers are not kept."""
        if key is None:
            return await run(None)
        request = Idempotency(scope, key, fingerprint)
        try:
            stored = await self.store.begin_idempotent(request)
        except IdempotencyConflict as exc:
            raise IdempotencyKeyInFlight(
                "a request with this Idempotency-Key is still running"
            ) from exc
        if stored is not None:
            if stored.fingerprint != fingerprint:
                raise IdempotencyKeyReused("this Idempotency-Key was used with another body")
            return msgspec.json.decode(stored.body, type=answer_type)
        try:
            return await run(request)
        except BaseException:
            if not await self._release(request):
                log.warning("could not release an idempotency key; retrying in the background")
                task = asyncio.create_task(self._keep_releasing(request), name="release-key")
                self._releasing.add(task)
                task.add_done_callback(self._releasing.discard)
            raise

    async def _release(self, request: Idempotency) -> bool:
        try:
            async with asyncio.timeout(FOLLOW_UP_SECONDS):
                await self.store.release_idempotent(request)
        except Exception:
            return False
        return True

    async def _keep_releasing(self, request: Idempotency) -> None:
        for _ in range(RELEASE_RETRIES):
            await asyncio.sleep(RELEASE_RETRY_SECONDS)
            if await self._release(request):
                return
        log.warning("gave up releasing an idempotency key; its claim will expire")

    @staticmethod
    def _answer(
        request: Idempotency | None, status: int, body: msgspec.Struct, location: str | None = None
    ) -> tuple[Idempotency, StoredAnswer] | None:
        if request is None:
            return None
        encoded = msgspec.json.encode(body)
        return request, StoredAnswer(request.fingerprint, status, encoded, location)

    async def _saved(
        self,
        before: MatchRecord,
        state: MatchState,
        token_hash: str | None = None,
        seat: int | None = None,
    ) -> None:
        """After a save: remember the match as saved, and wake its waiters."""
        self.recent.remember(msgspec.structs.replace(before, state=state), token_hash, seat)
        await self._publish(before.id, state)

    async def _publish(self, match_id: str, state: MatchState) -> None:
        # The change is stored: a lost wake-up only delays waiters until their timer.
        try:
            async with asyncio.timeout(FOLLOW_UP_SECONDS):
                await self.bus.publish(match_id, state.seq)
        except Exception:
            log.warning("could not announce match %s seq %d", match_id, state.seq, exc_info=True)

    def _changed(self, match_id: str, state: MatchState) -> None:
        if self.on_change is not None and ai_to_play(state) is not None:
            self.on_change(match_id)


def _play(
    before: MatchState,
    seat: int,
    card: int,
    capture: Sequence[int] | None,
    expected_version: int | None,
) -> tuple[MatchState, list[StoredEvent]]:
    """The move's outcome, refused in the order of API.md: 409, 412, then 422."""
    if before.status != "active":
        raise MatchNotActive(f"the match is {before.status}")
    if before.turn != seat:
        raise NotYourTurn(f"it is seat {before.turn}'s turn, not seat {seat}'s")
    if expected_version is not None and expected_version != before.version:
        raise StaleVersion(
            f"If-Match names version {expected_version}; the match is at version {before.version}"
        )
    try:
        return play(before, seat, resolve(before, seat, card, capture))
    except InvalidMove as exc:
        raise MoveRefused(str(exc), seat_moves(before, seat)) from exc


def _ai_seed(state: MatchState) -> int:
    """Deterministic per match and version, so a retried decision is the same decision."""
    return (state.rng ^ (state.version * 0x9E3779B97F4A7C15)) & ((1 << 63) - 1)
