"""What the use cases need from the outside world, as Protocols, each small.

``infra/`` implements them on SQLAlchemy (Postgres or SQLite), one store per capability;
``tests/fakes.py`` in memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import msgspec

from scopa.domain.ai.review import Review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.domain.moves import Move
from scopa.domain.rules import Rules
from scopa.service.limits import Quota


class VersionConflict(Exception):
    """Another change to the match was stored first; reload and decide again."""


class IdempotencyConflict(Exception):
    """The key is held by a request that is still running."""


class StoredAnswer(msgspec.Struct, frozen=True):
    """The first successful answer to an idempotent request, replayed on a retry."""

    fingerprint: str  # the request's (Idempotency.fingerprint)
    body: bytes  # the answer as first encoded, sealed: opaque to the store


class Idempotency(msgspec.Struct, frozen=True):
    """An idempotent request in flight, as the store keeps it: ``scope`` is the route and
    its caller (a seat token's hash, or ``idempotency.caller_scope``); ``key`` a hash of
    the client's Idempotency-Key, which is stored nowhere; ``fingerprint`` a hash, keyed
    by it, of the request body as canonical JSON, so equal JSON means equal
    (``service.idempotency``)."""

    scope: str
    key: str
    fingerprint: str


class MatchRecord(msgspec.Struct, frozen=True):
    id: str
    state: MatchState
    created_at: float  # unix seconds
    # The next moment something must happen to the match (an expiry, a turn's deadline,
    # abandonment), unix seconds; None when nothing is pending (an AI's turn, the end).
    due_at: float | None = None


Answer = tuple[Idempotency, StoredAnswer]


class Change(msgspec.Struct, frozen=True):
    """A change to one stored match: its new state and events, if it is still at
    ``expected_version``."""

    match_id: str
    expected_version: int
    state: MatchState
    events: tuple[StoredEvent, ...]
    due_at: float | None = None  # the match's next moment after the change (MatchRecord)


class AiBacklog(msgspec.Struct, frozen=True):
    """The AI turns ready to be played, across every process: how many, and since when the
    oldest has been ready (unix seconds; None when none is)."""

    ready: int
    oldest_ready_at: float | None


class UnitOfWork(Protocol):
    """One use case's writes, registered, then stored all at once by ``commit``, or not at
    all: ``VersionConflict`` when a change's match has moved on (or a match to add already
    exists), ``IdempotencyConflict`` when the answer's key is held by another request,
    ``QuotaExceeded`` when a new match would take its owner over its quota. Left without a
    commit, it stores nothing.

    Each change comes with what it implies (the match's AI turn queued or not, its next
    moment, the news of it to other processes): the store derives them, once, as it
    stores the change."""

    async def __aenter__(self) -> UnitOfWork: ...

    async def __aexit__(self, *exc: object) -> None: ...

    def add(
        self,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        *,
        quota: Quota | None = None,
    ) -> None:
        """A new match, its first events and its seat token hashes; with ``quota``, the
        match counts toward it."""

    def change(self, change: Change, token_hashes: Mapping[int, str] | None = None) -> None:
        """A stored match's new state and events, at its expected version, with the token
        hashes of seats it fills (a join)."""

    def keep_answer(self, answer: Answer | None) -> None:
        """The idempotent request's answer, kept with the writes (None: there is none)."""

    def settle(self, settlement: Settlement) -> None:
        """A pending challenge ended by the match added with it; ChallengeGone at commit
        when it is not pending any more."""

    async def commit(self) -> None: ...


class MatchRepository(Protocol):
    """The matches themselves: read one at a time; changed through a unit of work."""

    async def get(self, match_id: str) -> MatchRecord | None: ...

    async def get_for_token(
        self, match_id: str, token_hash: str
    ) -> tuple[MatchRecord, int | None] | None:
        """The match and the seat the token hash holds in it (None if no seat), in one
        read; None when there is no such match."""

    def unit_of_work(self) -> UnitOfWork: ...


class KeptReviews(Protocol):
    """The reviews of finished matches, each kept once."""

    async def keep_review(self, match_id: str, review: Review) -> None:
        """Store a finished match's review of one seat; a review already kept stands."""

    async def review(self, match_id: str, seat: int) -> Review | None:
        """The review of the seat kept for the match, if one was."""


class AiTurns(Protocol):
    """The AI turns across every process, as an operator watches them."""

    async def ai_backlog(self) -> AiBacklog:
        """The AI turns waiting to be played."""

    async def ai_capacity(self) -> int:
        """How many AI decisions the processes playing AI turns can make at once, as they
        last said (0: none is running)."""


class MatchReads(Protocol):
    """The read side: what queries across matches or along a match's log need."""

    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        """Events with seq > after, oldest first, at most ``limit``."""

    async def initial(self, match_id: str) -> MatchState | None:
        """The match as it was created: its log replays from here to its state."""

    async def waiting(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        """Matches with an open seat, oldest first (by created_at, then id), after a cursor."""

    async def active(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        """Active matches, newest first (by created_at, then id, both descending), after a
        cursor."""

    async def seat_tokens(self, match_id: str) -> dict[int, str]:
        """The token hash of each seat that has one."""

    async def due(self, now: float, limit: int) -> list[str]:
        """Ids of matches whose ``due_at`` is at or before ``now``, longest overdue first,
        at most ``limit``."""

    async def token_known(self, token_hash: str) -> bool:
        """Whether the hash belongs to any seat of any match (a token of another match)."""

    async def active_count(self) -> int:
        """How many matches are being played (status active), across every process."""

    async def ping(self) -> None:
        """Raise if the database does not answer."""


class IdempotencyKeys(Protocol):
    """Claims on Idempotency-Keys; the answer itself is kept by the unit of work."""

    async def begin_idempotent(self, request: Idempotency) -> StoredAnswer | None:
        """Claim the key: None when claimed now; the stored answer when the key already has
        one (even for another fingerprint: the caller compares); IdempotencyConflict when
        a request holding it is still running."""

    async def release_idempotent(self, request: Idempotency) -> None:
        """Drop a claim whose request failed: failed answers are not stored."""


class EventBus(Protocol):
    """Wakes waiters when a match has new events, across processes; and the asker of a
    hint when a worker answered it, the job's id standing for the match (seq 1)."""

    async def publish(self, match_id: str, seq: int) -> None: ...

    async def wait(self, match_id: str, after: int, seconds: float) -> bool:
        """Until an event past ``after`` may have been stored, or ``seconds`` pass; True if
        woken. A bus that cannot hear every change for a while (its connection is down)
        wakes its waiters then, and bounds their waits until it hears again, so a waiter
        that re-reads the store on waking never misses an event for long."""

    def wake_all(self) -> None:
        """End every wait now (its waiters look again: at shutdown, that they must stop)."""


class ReviewQueue(Protocol):
    """Reviews asked of the processes that run AI, by a process that runs none."""

    async def ask_review(self, match_id: str, seat: int) -> None:
        """Ask for the review of ``seat``; asking again while it is pending changes nothing.
        Keeping the review (``KeptReviews.keep_review``) answers the asking."""

    async def review_held(self, match_id: str, seat: int) -> bool:
        """Whether a live process holds the asked review: it is computing it."""


class HintQueue(Protocol):
    """Hints asked of the processes that run AI, by a process that runs none; and the
    worker's side of them."""

    async def ask_hint(self, match_id: str, state: MatchState, seat: int, level: str) -> str:
        """Ask for ``level``'s move for ``seat`` in the match's ``state``; the request's id."""

    async def hint_answer(self, job: str) -> tuple[Move, str] | None:
        """The move and its reason, once a process answered."""

    async def hint_held(self, job: str) -> bool:
        """Whether a live process holds the hint: it is deciding it."""

    async def drop_hint(self, job: str) -> None:
        """Forget the request, answered or not: nobody decides it any more."""

    async def hint_job(self, job: str) -> tuple[MatchState, int, str] | None:
        """The state, seat and level asked for; None once dropped."""

    async def answer_hint(self, job: str, move: Move, reason: str) -> None:
        """Give the request its answer (nothing if dropped meanwhile)."""


class AiPlayer(Protocol):
    """The AI, wherever it runs (a worker pool in production)."""

    levels: tuple[str, ...]

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        """The move ``level`` plays for ``seat``, and why; in a seeded match, the same
        move for the same arguments whatever the time it takes (no clock decides it)."""

    async def review(self, initial: MatchState, events: Sequence[StoredEvent], seat: int) -> Review:
        """``domain.ai.review`` of the finished match ``events`` took from ``initial``."""


class Player(msgspec.Struct, frozen=True):
    """A registered player; ``origin`` a hash of the client address it registered from."""

    handle: str
    name: str
    kind: str  # human or bot
    joined_at: float  # unix seconds
    origin: str = ""


class PlayerToken(msgspec.Struct, frozen=True):
    """A player's API token as the store keeps it: never the secret, only its hash."""

    id: str
    handle: str
    label: str
    created_at: float
    last_used_at: float | None = None


class StoredRating(msgspec.Struct, frozen=True):
    """A player's rating in one format (domain.rated)."""

    format: str
    rating: float
    deviation: float
    volatility: float
    games: int


class RatedGame(msgspec.Struct, frozen=True):
    """A rated match of a player: when it finished, and the player's rating after it."""

    match_id: str
    finished_at: float
    rating: float


class Counts(msgspec.Struct, frozen=True):
    played: int = 0
    won: int = 0
    lost: int = 0


class HandleTaken(Exception):
    """The handle, or one people would read as it, is registered already."""


class TooManyTokens(Exception):
    """The player holds as many live tokens as it may."""


class PlayerBusy(Exception):
    """The player holds a seat in a match waiting or being played."""


class PlayerGone(Exception):
    """A player the write seats (or challenges with) was deleted before it committed."""

    def __init__(self, handle: str) -> None:
        super().__init__(f"the player {handle!r} was deleted")
        self.handle = handle


class Challenge(msgspec.Struct, frozen=True):
    """A challenge as the store keeps it; ``status`` pending, accepted, declined or
    cancelled, and expired when read pending past ``expires_at``."""

    id: str
    challenger: str
    opponent: str | None  # None: open to anyone (or to ``level``)
    level: str | None  # an AI level, which accepts at once
    rules: Rules
    rated: bool
    status: str
    created_at: float
    expires_at: float
    match_id: str | None = None


class Settlement(msgspec.Struct, frozen=True):
    """A pending challenge's end: its new status (and match), and what each of the players
    ``notices`` names is told of it, on its challenge stream (``Challenges.inbox``)."""

    challenge_id: str
    status: str
    match_id: str | None = None
    notices: tuple[tuple[str, bytes], ...] = ()


class ChallengeGone(Exception):
    """The challenge is no longer pending: accepted, declined, withdrawn or expired."""


class Challenges(Protocol):
    """Challenges, and each player's stream of news of them. A challenge accepted is
    settled by the unit of work that stores its match (``UnitOfWork.settle``)."""

    async def add(
        self,
        challenge: Challenge,
        notices: Sequence[tuple[str, bytes]],
        *,
        per_minute: int,
        pending: int,
        answer: Answer | None = None,
    ) -> None:
        """Store a new challenge and the idempotent request's answer, and tell the
        players of ``notices``; QuotaExceeded when its challenger made ``per_minute`` in
        the last minute or holds ``pending``."""

    async def challenge(self, challenge_id: str) -> Challenge | None: ...

    async def open(self, limit: int) -> list[Challenge]:
        """The open challenges still pending, newest first."""

    async def of(self, handle: str, limit: int, after: tuple[float, str] | None) -> list[Challenge]:
        """The pending challenges to the player (open ones aside) and from it, newest
        first (by created_at, then id, both descending), after a cursor."""

    async def settle(self, settlement: Settlement) -> None:
        """End a pending challenge with no match (declined, withdrawn); ChallengeGone if
        it is not pending any more."""

    async def inbox(self, handle: str, after: int, limit: int) -> list[tuple[int, bytes]]:
        """The player's news after ``after``, oldest first, each with its number."""

    async def latest(self, handle: str) -> int:
        """The number of the player's latest news (0: none)."""


class Players(Protocol):
    """Registered players and their tokens. A seat a player takes, and the rating of a
    rated match, are stored by the unit of work that stores the match."""

    async def register(
        self,
        player: Player,
        handle_key: str,
        token: PlayerToken,
        token_hash: str,
        answer: Answer | None = None,
    ) -> None:
        """Store a new player with its first token, and the idempotent request's answer;
        HandleTaken when ``handle_key`` (the handle as people read it) is anyone's, a
        deleted player's too."""

    async def player(self, handle: str) -> Player | None:
        """The player of the handle as people read it (case and look-alikes aside), the
        one registered with exactly that handle first, unless there is none or it was
        deleted."""

    async def authenticate(self, token_hash: str, now: float) -> Player | None:
        """The live player whose live token has this hash, marking the token used at
        ``now`` (at most once a minute); None otherwise."""

    async def tokens(self, handle: str) -> list[PlayerToken]:
        """The player's live tokens, oldest first."""

    async def add_token(
        self, token: PlayerToken, token_hash: str, cap: int, answer: Answer | None = None
    ) -> None:
        """A new token, and the idempotent request's answer; TooManyTokens when the player
        holds ``cap`` already."""

    async def revoke(self, handle: str, token_id: str) -> str | None:
        """Revoke the player's token, announcing it (``ids.revoked_key``) on commit; the
        token's hash, None when the player has no such token."""

    async def delete(self, handle: str, now: float) -> list[tuple[str, int]]:
        """Delete the player, keeping its handle, in one transaction that a write seating
        it or challenging with it conflicts with (PlayerGone there): its tokens revoked,
        its seat tokens dropped, its pending challenges cancelled (made) or declined
        (received) with news to the other player. PlayerBusy while it holds a seat in a
        match waiting or being played. What it announced on commit, as (key, seq), for
        this process's bus."""


class Standings(Protocol):
    """What players did: their matches, counts, ratings and the leaderboard."""

    async def matches(
        self, handle: str, status: str | None, limit: int, after: tuple[float, str] | None
    ) -> list[tuple[MatchRecord, int]]:
        """The player's matches (of ``status``, or all), newest first (created_at, then
        id, both descending) after a cursor, each with the player's seat."""

    async def counts(self, handle: str) -> Counts:
        """The player's finished matches: played, won, lost."""

    async def ratings(self, handle: str) -> list[StoredRating]:
        """The player's rating in each format it played, in domain.rated.FORMATS order."""

    async def rating_history(self, handle: str, format: str, limit: int) -> list[RatedGame]:
        """The player's last ``limit`` rated matches in ``format``, oldest first."""

    async def origins(self, handles: Sequence[str]) -> dict[str, str]:
        """The origin of each of these players (deleted ones too)."""

    async def leaderboard(
        self,
        format: str,
        provisional: bool,
        limit: int,
        after: tuple[float, str] | None,
    ) -> list[tuple[Player, StoredRating]]:
        """Live players by rating in ``format``, best first (ties by handle), after a
        cursor (rating, handle): the established ones, or the provisional ones."""


class MatchObserver(Protocol):
    """Told what the use cases did, for the figures an operator watches (the metrics).
    Each call is a plain, quick, synchronous note: it never fails a use case."""

    def match_created(self) -> None: ...

    def match_finished(self, end_reason: str) -> None: ...

    def move_played(self, player: str) -> None:
        """A card played; ``player`` is who decided it: human, or ai (an AI seat, or the
        autoplay of a turn whose clock ran out)."""

    def stream_opened(self) -> None: ...

    def stream_closed(self) -> None: ...


class Unobserved:
    """The observer when nobody watches."""

    def match_created(self) -> None:
        pass

    def match_finished(self, end_reason: str) -> None:
        pass

    def move_played(self, player: str) -> None:
        pass

    def stream_opened(self) -> None:
        pass

    def stream_closed(self) -> None:
        pass
