"""In-memory fakes of the ports, so service and API tests never touch a database.

They keep the contract of ``service.ports`` as the SQL store does: a save at a stale
version raises ``VersionConflict``; an idempotency key is claimed once and answers with
the stored answer afterwards; ``down`` makes every call fail as a dead database would.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from scopa.contract.events import EventView
from scopa.domain.ai import LEVELS
from scopa.domain.ai.review import Review, review
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, ai_to_play, legal_moves
from scopa.domain.moves import Move
from scopa.service.callers import Caller
from scopa.service.lifecycle import Lifecycle
from scopa.service.limits import Quota, QuotaExceeded, Window
from scopa.service.ports import (
    AiBacklog,
    AiPlayer,
    Answer,
    Change,
    HintQueue,
    Idempotency,
    IdempotencyConflict,
    MatchObserver,
    MatchRecord,
    Settlement,
    StoredAnswer,
    VersionConflict,
)
from scopa.service.services import Services
from tests.fake_players import FakeChallenges, FakePlayers, FakeStandings


class StoreDown(Exception):
    """What the fake raises while ``down``: the app maps it like a database outage."""


# As the SQL store's: an unanswered claim this old is taken to be of a crashed request.
CLAIM_TTL = 60.0


@dataclass
class FakeKeys:
    """Idempotency-Key claims and the answers kept with the changes they made: by (scope,
    key), the fingerprint, the answer (None while claimed) and when either was written."""

    store: FakeStore
    claims: dict[tuple[str, str], tuple[str, StoredAnswer | None, float]] = field(
        default_factory=dict
    )

    def check_keep(self, answer: Answer | None) -> None:
        """IdempotencyConflict if keeping ``answer`` must undo its change: the key is held
        by another request (or already answered)."""
        if answer is None:
            return
        request, _ = answer
        held = self.claims.get((request.scope, request.key))
        if held is not None and (held[0] != request.fingerprint or held[1] is not None):
            raise IdempotencyConflict(request.key)

    def keep(self, answer: Answer | None) -> None:
        if answer is not None:
            request, stored = answer
            key = (request.scope, request.key)
            self.claims[key] = (stored.fingerprint, stored, self.store.clock())

    async def begin_idempotent(self, request: Idempotency) -> StoredAnswer | None:
        self.store.check()
        now = self.store.clock()
        key = (request.scope, request.key)
        held = self.claims.get(key)
        if held is not None and held[1] is not None:
            return held[1]
        if held is not None and now - held[2] < CLAIM_TTL:
            raise IdempotencyConflict(request.key)
        self.claims[key] = (request.fingerprint, None, now)
        return None

    async def release_idempotent(self, request: Idempotency) -> None:
        self.store.check()
        held = self.claims.get((request.scope, request.key))
        if held is not None and held[0] == request.fingerprint and held[1] is None:
            del self.claims[(request.scope, request.key)]

    async def purge_idempotency(self, older_than: float) -> int:
        self.store.check()
        old = [key for key, (_, _, at) in self.claims.items() if at < older_than]
        for key in old:
            del self.claims[key]
        return len(old)


@dataclass
class FakeReads:
    """The read side, over the fake repository's matches."""

    store: FakeStore

    async def token_known(self, token_hash: str) -> bool:
        self.store.check()
        return any(token_hash in seats for seats in self.store.tokens.values())

    async def events(self, match_id: str, after: int, limit: int) -> list[StoredEvent]:
        self.store.check()
        return [e for e in self.store.log.get(match_id, []) if e.seq > after][:limit]

    async def initial(self, match_id: str) -> MatchState | None:
        self.store.check()
        return self.store.initials.get(match_id)

    async def waiting(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        # A match that ended waiting keeps its open seats, but leaves the lobby.
        def lists(s: MatchState) -> bool:
            return s.status == "waiting" and any(seat.kind == "open" for seat in s.seats)

        return self._listed(lists, limit, after)

    async def active(self, limit: int, after: tuple[float, str] | None) -> list[MatchRecord]:
        return self._listed(lambda s: s.status == "active", limit, after, newest_first=True)

    def _listed(
        self,
        which: Callable[[MatchState], bool],
        limit: int,
        after: tuple[float, str] | None,
        *,
        newest_first: bool = False,
    ) -> list[MatchRecord]:
        self.store.check()

        def position(r: MatchRecord) -> tuple[float, str]:
            return (r.created_at, r.id)

        found = sorted(
            (r for r in self.store.records.values() if which(r.state)),
            key=position,
            reverse=newest_first,
        )
        if after is not None:
            found = [
                r for r in found if (position(r) < after if newest_first else position(r) > after)
            ]
        return found[:limit]

    async def review(self, match_id: str, seat: int) -> Review | None:
        self.store.check()
        return self.store.reviews.get((match_id, seat))

    async def keep_review(self, match_id: str, review: Review) -> None:
        self.store.check()
        self.store.reviews.setdefault((match_id, review.seat), review)

    async def seat_tokens(self, match_id: str) -> dict[int, str]:
        self.store.check()
        return {seat: h for h, seat in self.store.tokens.get(match_id, {}).items()}

    async def ai_backlog(self) -> AiBacklog:
        self.store.check()
        return AiBacklog(len(self.store.pending_ai_turns()), None)

    async def ai_capacity(self) -> int:
        self.store.check()
        return self.store.ai_capacity

    async def due(self, now: float, limit: int) -> list[str]:
        self.store.check()
        due = [r for r in self.store.records.values() if r.due_at is not None and r.due_at <= now]
        return [r.id for r in sorted(due, key=lambda r: r.due_at or 0.0)][:limit]

    async def active_count(self) -> int:
        self.store.check()
        return sum(r.state.status == "active" for r in self.store.records.values())

    async def ping(self) -> None:
        self.store.check()


@dataclass
class FakeUnitOfWork:
    """Writes registered, stored by the fake store at ``commit`` all at once."""

    store: FakeStore
    added: list[tuple[MatchRecord, Sequence[StoredEvent], Mapping[int, str], Quota | None]] = field(
        default_factory=list
    )
    changes: list[tuple[Change, Mapping[int, str]]] = field(default_factory=list)
    answer: Answer | None = None
    settlements: list[Settlement] = field(default_factory=list)

    async def __aenter__(self) -> FakeUnitOfWork:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.added, self.changes, self.answer, self.settlements = [], [], None, []

    def add(
        self,
        record: MatchRecord,
        events: Sequence[StoredEvent],
        token_hashes: Mapping[int, str],
        *,
        quota: Quota | None = None,
    ) -> None:
        self.added.append((record, events, token_hashes, quota))

    def change(self, change: Change, token_hashes: Mapping[int, str] | None = None) -> None:
        self.changes.append((change, token_hashes or {}))

    def keep_answer(self, answer: Answer | None) -> None:
        self.answer = answer

    def settle(self, settlement: Settlement) -> None:
        self.settlements.append(settlement)

    async def commit(self) -> None:
        try:
            self.store.commit(self)
        finally:
            await self.__aexit__()


@dataclass
class FakeStore:
    """The match repository; ``reads`` (with the AI turns' figures and the reviews kept)
    and ``keys`` are the other ports over it."""

    records: dict[str, MatchRecord] = field(default_factory=dict)
    log: dict[str, list[StoredEvent]] = field(default_factory=dict)
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    initials: dict[str, MatchState] = field(default_factory=dict)
    reviews: dict[tuple[str, int], Review] = field(default_factory=dict)
    down: bool = False
    saves: int = 0
    ai_capacity: int = 1  # what the processes playing AI turns say they can do at once
    # match id -> when its claim lapses (time.monotonic); cleared by the match's save.
    leases: dict[str, float] = field(default_factory=dict)
    quotas: dict[str, Quota] = field(default_factory=dict)  # by match id
    # Claims of AI turns that found none pending, and that failed while ``down``: what a
    # test waits on to know the AI runner has looked (no move made sends no news).
    idle_claims: int = 0
    refused_claims: int = 0
    clock: Callable[[], float] = time.time  # unix seconds, for the keys' claims

    def __post_init__(self) -> None:
        self.reads = FakeReads(self)
        self.keys = FakeKeys(self)
        self.players = FakePlayers(self)
        self.standings = FakeStandings(self.players)
        self.challenges = FakeChallenges(self)

    def check(self) -> None:
        if self.down:
            raise StoreDown("the database does not answer")

    def unit_of_work(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self)

    def _count(self, match_id: str, quota: Quota | None) -> None:
        if quota is None:
            return
        held = sum(
            (q.owner, q.name) == (quota.owner, quota.name)
            and self.records[other].state.status == quota.status
            for other, q in self.quotas.items()
        )
        if held >= quota.cap:
            raise QuotaExceeded(quota.name, quota.cap)
        self.quotas[match_id] = quota

    async def get(self, match_id: str) -> MatchRecord | None:
        self.check()
        return self.records.get(match_id)

    async def get_for_token(
        self, match_id: str, token_hash: str
    ) -> tuple[MatchRecord, int | None] | None:
        self.check()
        record = self.records.get(match_id)
        return None if record is None else (record, self.tokens[match_id].get(token_hash))

    def commit(self, work: FakeUnitOfWork) -> None:
        """Store ``work``'s writes, all or none, as the SQL unit of work does."""
        self.check()
        for change, _ in work.changes:
            record = self.records.get(change.match_id)
            if record is None or record.state.version != change.expected_version:
                raise VersionConflict(change.match_id)
            logged = {e.seq for e in self.log[change.match_id]}
            if any(e.seq in logged for e in change.events):
                raise VersionConflict(f"{change.match_id} already has one of these events")
        for record, *_ in work.added:
            if record.id in self.records:
                raise VersionConflict(record.id)
        self.keys.check_keep(work.answer)
        for settlement in work.settlements:
            self.challenges.check_settle(settlement)
        for record, *_ in work.added:
            self.players.check_live(record.state, range(record.state.players))
        for change, token_hashes in work.changes:
            self.players.check_live(change.state, token_hashes)
        counted = dict(self.quotas)
        try:
            for record, _, _, quota in work.added:
                self._count(record.id, quota)
        except QuotaExceeded:
            self.quotas = counted
            raise
        for record, events, token_hashes, _ in work.added:
            self.records[record.id] = record
            self.initials[record.id] = record.state
            self.log[record.id] = list(events)
            self.tokens[record.id] = {h: seat for seat, h in token_hashes.items()}
            self.players.seated(record, record.state, range(record.state.players))
        for change, token_hashes in work.changes:
            self.saves += 1
            self.leases.pop(change.match_id, None)
            created = self.records[change.match_id].created_at
            self.records[change.match_id] = MatchRecord(
                change.match_id, change.state, created, change.due_at
            )
            self.log[change.match_id].extend(change.events)
            for seat, h in token_hashes.items():
                self.tokens[change.match_id][h] = seat
            self.players.changed(self.records[change.match_id], change, token_hashes)
        for settlement in work.settlements:
            self.challenges.apply(settlement)
        self.keys.keep(work.answer)

    def pending_ai_turns(self) -> list[str]:
        return [i for i, r in self.records.items() if ai_to_play(r.state) is not None]

    async def claim_ai_turn(
        self, lease_seconds: float, by: str = "", human_only: bool = False
    ) -> str | None:
        """As the SQL queue, unpaced and in creation order: the first turn not leased."""
        if self.down:
            self.refused_claims += 1
        self.check()
        now = time.monotonic()
        pending = self.pending_ai_turns()
        if not pending:
            self.idle_claims += 1
        for match_id in pending:
            human = any(s.kind != "ai" for s in self.records[match_id].state.seats)
            if self.leases.get(match_id, 0.0) <= now and (human or not human_only):
                self.leases[match_id] = now + lease_seconds
                return match_id
        return None


class ServiceOptions(TypedDict, total=False):
    """The options of ``build_services`` that tests set, each of its type there."""

    ai: AiPlayer | None
    hint_queue: HintQueue | None
    on_change: Callable[[str], None] | None
    observer: MatchObserver | None
    clock: Callable[[], float]
    monotonic: Callable[[], float]
    lifecycle: Lifecycle | None


def fake_service(
    store: FakeStore | None = None, bus: FakeBus | None = None, **kwargs: Unpack[ServiceOptions]
) -> Services:
    """A ``Services`` on the fakes (a new store and bus unless given)."""
    from scopa.service.services import build_services

    store = store or FakeStore()
    return build_services(
        store,
        bus or FakeBus(),
        reads=store.reads,
        keys=store.keys,
        turns=store.reads,
        kept=store.reads,
        players=store.players,
        standings=store.standings,
        challenges=store.challenges,
        **kwargs,
    )


class FakeBus:
    """Wakes waiters in this process only, which is all one test process needs."""

    def __init__(self) -> None:
        self.latest: dict[str, int] = {}
        self._changed = asyncio.Condition()
        self._wake_ups = 0  # how many times every waiter was woken
        self.waiting = 0  # waits in progress, as LocalEventBus counts them

    async def publish(self, match_id: str, seq: int) -> None:
        async with self._changed:
            self.latest[match_id] = max(seq, self.latest.get(match_id, 0))
            self._changed.notify_all()

    def wake_all(self) -> None:
        self._wake_ups += 1
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait(self, match_id: str, after: int, seconds: float) -> bool:
        woken = self._wake_ups
        self.waiting += 1
        try:
            async with self._changed:
                await asyncio.wait_for(
                    self._changed.wait_for(
                        lambda: self.latest.get(match_id, 0) > after or self._wake_ups != woken
                    ),
                    seconds,
                )
        except TimeoutError:
            return False
        finally:
            self.waiting -= 1
        return True


class FirstMoveAi:
    """An AI that plays the first legal move at once: tests of the flow, not of play."""

    levels: tuple[str, ...] = LEVELS

    def __init__(self) -> None:
        self.calls = 0
        self.reviews = 0

    async def decide(self, state: MatchState, seat: int, level: str, seed: int) -> tuple[Move, str]:
        assert state.turn == seat
        self.calls += 1
        return legal_moves(state)[0], f"{level}: the first legal move"

    async def review(self, initial: MatchState, events: Sequence[StoredEvent], seat: int) -> Review:
        self.reviews += 1
        return await asyncio.to_thread(review, initial, events, seat)


class FakeCounts:
    """``service.limits.Counts`` in memory (one process: the app tests over the fakes)."""

    def __init__(self) -> None:
        self.used: dict[tuple[str, str, int], int] = {}

    async def count(self, windows: Sequence[Window], *, take: bool) -> tuple[bool, list[int]]:
        keys = [(w.name, w.client, w.period) for w in windows]
        used = [self.used.get(key, 0) for key in keys]
        allowed = all(n < w.cap for n, w in zip(used, windows, strict=True))
        if take and allowed:
            used = [n + 1 for n in used]
            self.used.update(zip(keys, used, strict=True))
        return allowed, used


class FakeSlots:
    """``service.limits.Slots`` in memory."""

    def __init__(self) -> None:
        self.leases: dict[str, tuple[str, str | None]] = {}

    async def hold(
        self, client: str, match_id: str | None, per_client: int, per_match: int
    ) -> str | None:
        held = self.leases.values()
        if per_client and sum(c == client for c, _ in held) >= per_client:
            return None
        if per_match and match_id and sum(m == match_id for _, m in held) >= per_match:
            return None
        lease = f"lease-{len(self.leases)}-{client}"
        self.leases[lease] = (client, match_id)
        return lease

    async def release(self, lease: str) -> None:
        del self.leases[lease]


def as_is(view: EventView) -> EventView:
    """A stream's rendering that leaves each event as the viewer's view of it."""
    return view


async def followed(
    service: Services, caller: Caller, after: int, seconds: float
) -> AsyncIterator[EventView | None]:
    """``Services.stream`` one event at a time (it gives them a batch at a time)."""
    async with aclosing(service.records.stream(caller, after, seconds, as_is)) as batches:
        async for batch in batches:
            if batch is None:
                yield None
            else:
                for event in batch:
                    yield event
