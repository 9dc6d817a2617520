"""Writes to a match store in one call each, through its unit of work, as the tests that
set up or change stored matches need them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState
from scopa.service.limits import Quota
from scopa.service.ports import Answer, Change, MatchRecord, MatchRepository


async def create(
    matches: MatchRepository,
    record: MatchRecord,
    events: Sequence[StoredEvent],
    token_hashes: Mapping[int, str],
    answer: Answer | None = None,
    *,
    quota: Quota | None = None,
) -> None:
    """Store a new match with what comes with it."""
    async with matches.unit_of_work() as uow:
        uow.add(record, events, token_hashes, quota=quota)
        uow.keep_answer(answer)
        await uow.commit()


async def save(
    matches: MatchRepository,
    match_id: str,
    expected_version: int,
    state: MatchState,
    events: Sequence[StoredEvent],
    token_hashes: Mapping[int, str] | None = None,
    answer: Answer | None = None,
    *,
    due_at: float | None = None,
) -> None:
    """Store a change to a match at ``expected_version``."""
    async with matches.unit_of_work() as uow:
        uow.change(Change(match_id, expected_version, state, tuple(events), due_at), token_hashes)
        uow.keep_answer(answer)
        await uow.commit()
