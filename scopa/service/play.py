"""A seat's moves: play a card, resign, abort; each once per Idempotency-Key.

A move may start from the state this process last saw (``service.recent``), which spares
it a read: the version-checked save confirms an acceptance, and a refusal is given only
once the match has been read afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from scopa.contract.views import MatchView, match_view, seat_moves
from scopa.domain.errors import CannotAbort, InvalidMove, MatchNotActive, NotYourTurn
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, abort, play_named, resign
from scopa.service.callers import Caller
from scopa.service.changes import Changes
from scopa.service.errors import InvalidToken, MoveRefused, StaleVersion
from scopa.service.idempotency import Claim, Once, answer_of
from scopa.service.ports import Change, MatchObserver, MatchRecord, VersionConflict

# What a change decided on a remembered state may be refused for: only once the match is
# read afresh does a refusal stand.
# What an If-Match listing no version expects: no match is ever at it.
NO_VERSION = -1
REFUSALS = (MatchNotActive, NotYourTurn, CannotAbort, StaleVersion, MoveRefused)

# What a seat does to the match: the new state and the events it records.
SeatChange = Callable[[MatchState], tuple[MatchState, list[StoredEvent]]]


class Play:
    def __init__(self, changes: Changes, once: Once, observer: MatchObserver) -> None:
        self.changes = changes
        self.once = once
        self.observer = observer

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
        changes = self.changes

        async def run(request: Claim | None) -> MatchView:
            async def changed(current: MatchRecord, fresh: bool) -> MatchView:
                if changes.overdue(current):
                    current, fresh = await changes.passed(match_id), True
                before = current.state
                try:
                    state, events = change(before)
                except REFUSALS:
                    if fresh:
                        raise
                    # Decided on a remembered state: only the stored one may refuse.
                    raise VersionConflict(match_id) from None
                due_at = changes.due_at(current, state)
                view = match_view(match_id, state, seat, deadline=due_at)
                stored = Change(match_id, before.version, state, tuple(events), due_at)
                await changes.write(stored, answer=answer_of(request, view))
                if played:
                    self.observer.move_played("human")
                await changes.saved(current, state, due_at)
                changes.changed(match_id, state)
                return view

            return await changes.until_stored(match_id, caller.record, changed, caller.fresh)

        return await self.once.run(scope, key, fingerprint, MatchView, run)


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
        named = "no version" if expected_version == NO_VERSION else f"version {expected_version}"
        raise StaleVersion(f"the request expects {named}; the match is at version {state.version}")
