"""The stored history of matches, checked against itself and against what clients were told.

``audit`` reads the store directly (``SqlStores``), not through the API: a server
that loses or invents moves could also answer reads wrongly. For each match the event log
must be gapless from seq 1, ``domain.match.replay(initial, events)`` must give the stored
state, and replaying the changes one by one (joins and claims, plays, rematch offers) must
give back exactly the events that were stored. Every move a client saw acknowledged (an
``Ack``) must be the move the log holds at that version.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from scopa.domain.errors import ScopaError
from scopa.domain.events import CardPlayed, StoredEvent
from scopa.domain.match import MatchState, redo, replay
from scopa.infra.db import make_engine
from scopa.infra.stores import sql_stores

# More events than any match can have: one read returns the whole log.
ALL_EVENTS = 1_000_000


@dataclass(frozen=True)
class Ack:
    """A move the server answered 2xx to: ``version`` is the one the move made."""

    match_id: str
    version: int
    seat: int
    card: str
    capture: tuple[str, ...]


@dataclass
class Audit:
    matches: int = 0
    events: int = 0
    finished: int = 0
    moves_lost: int = 0
    problems: list[str] = field(default_factory=list)


async def audit(database_url: str, match_ids: Iterable[str], acks: Iterable[Ack] = ()) -> Audit:
    acked: dict[str, list[Ack]] = defaultdict(list)
    for ack in acks:
        acked[ack.match_id].append(ack)
    result = Audit()
    engine = make_engine(database_url)
    try:
        store = sql_stores(engine)
        for match_id in sorted(set(match_ids) | set(acked)):
            record = await store.matches.get(match_id)
            if record is None:
                result.problems.append(f"{match_id}: not stored")
                result.moves_lost += len(acked[match_id])
                continue
            events = await store.reads.events(match_id, 0, ALL_EVENTS)
            result.matches += 1
            result.events += len(events)
            result.finished += record.state.status == "finished"
            initial = await store.reads.initial(match_id)
            assert initial is not None
            _check(match_id, initial, record.state, events, acked[match_id], result)
    finally:
        await engine.dispose()
    return result


def _check(
    match_id: str,
    initial: MatchState,
    stored: MatchState,
    events: list[StoredEvent],
    acks: list[Ack],
    result: Audit,
) -> None:
    problems = result.problems
    seqs = [event.seq for event in events]
    if seqs != list(range(1, stored.seq + 1)):
        problems.append(f"{match_id}: seqs {seqs[:3]}..{seqs[-3:]} for last seq {stored.seq}")
    played: dict[int, CardPlayed] | None = {}
    try:
        if replay(initial, events) != stored:
            problems.append(f"{match_id}: replaying the log does not give the stored state")
        played = _replay_step_by_step(initial, events)
        if played is None:
            problems.append(f"{match_id}: the log differs from what its own moves produce")
    except ScopaError as error:
        problems.append(f"{match_id}: the log holds a change the rules refuse: {error}")
    for ack in acks:
        event = (played or {}).get(ack.version)
        if event is None or (event.seat, event.card, tuple(sorted(event.capture))) != (
            ack.seat,
            ack.card,
            tuple(sorted(ack.capture)),
        ):
            result.moves_lost += 1
            problems.append(f"{match_id}: acknowledged {ack} but the log has {event}")


def _replay_step_by_step(
    initial: MatchState, events: list[StoredEvent]
) -> dict[int, CardPlayed] | None:
    """The play that made each version, or None when the changes of the log (joins, plays,
    endings) do not produce exactly the log."""
    # The create's own events (the first deal) come before anything a change produced.
    state = initial
    produced = list(events[: initial.seq])
    played: dict[int, CardPlayed] = {}
    for event in events[initial.seq :]:
        redone = redo(state, event)
        if redone is None:
            continue
        state, new = redone
        if isinstance(event, CardPlayed):
            played[state.version] = event
        produced += new
    return played if produced == events else None


async def stored_state(database_url: str, match_id: str) -> MatchState | None:
    """The match as stored, read past any server (for one that is down, say)."""
    engine = make_engine(database_url)
    try:
        record = await sql_stores(engine).matches.get(match_id)
    finally:
        await engine.dispose()
    return None if record is None else record.state
