"""Stored matches as the store tests make them: a fixed clock, fresh matches, moves
played, seat token hashes and idempotent requests."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, SeatKind, legal_moves, new_match, play
from scopa.domain.rules import make_rules
from scopa.service.ports import Idempotency, MatchRecord, MatchRepository, StoredAnswer
from tests.support.writes import create


class HasMatches(Protocol):
    @property
    def matches(self) -> MatchRepository: ...


T0 = 1_700_000_000.0


class Clock:
    """A settable clock, for the idempotency claim timeout."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def seats(*kinds: SeatKind) -> list[Seat]:
    return [Seat(k, "easy" if k == "ai" else None) for k in kinds]


def fresh(*kinds: SeatKind, seed: int = 1) -> tuple[MatchState, list[StoredEvent]]:
    return new_match(make_rules(), seats(*(kinds or ("human", "human"))), seed=seed)


def advance(state: MatchState, moves: int = 1) -> tuple[MatchState, list[StoredEvent]]:
    events: list[StoredEvent] = []
    for _ in range(moves):
        state, more = play(state, state.turn or 0, legal_moves(state)[0])
        events += more
    return state, events


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def stored(
    store: HasMatches,
    match_id: str,
    *kinds: SeatKind,
    created_at: float = T0,
    tokens: Sequence[str] = (),
) -> MatchState:
    state, events = fresh(*kinds)
    record = MatchRecord(id=match_id, state=state, created_at=created_at)
    await create(store.matches, record, events, {i: token_hash(t) for i, t in enumerate(tokens)})
    return state


def claim(key: str = "k1", fingerprint: str = "fp1", scope: str = "create") -> Idempotency:
    return Idempotency(scope=scope, key=key, fingerprint=fingerprint)


def answer(fingerprint: str = "fp1", body: bytes = b'{"ok":true}') -> StoredAnswer:
    return StoredAnswer(fingerprint=fingerprint, body=body)
