"""The ports of the limits that keep one client from crowding out the rest: counts of
requests per window and leases on open streams, which every process must share (the
database holds them, ``infra.limits``), and the "at once" quota on a client's matches.

A client here is an opaque string (an address, a /64, a token's hash): who it is, is the
HTTP adapter's business (``api.clients``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from scopa.domain.match import MatchState
from scopa.service.errors import ServiceError


@dataclass(frozen=True)
class Window:
    """One client's count under one rate limit in one fixed window."""

    name: str
    client: str
    period: int  # which window: unix seconds // its length
    cap: int  # the most it may count
    ends_at: float  # unix seconds


class Counts(Protocol):
    async def count(self, windows: list[Window], *, take: bool) -> tuple[bool, list[int]]:
        """The requests each window has counted. With ``take``, one more in each, unless
        one of them is at its cap: then in none, and False. Without, only whether every
        window is under its cap. The counts are as they stand after."""


class Slots(Protocol):
    async def hold(
        self, client: str, match_id: str | None, per_client: int, per_match: int
    ) -> str | None:
        """A lease on an open stream of a match (``match_id``) or a long poll (None),
        taken only while the client and the match are under their caps (0: none): its
        id, or None when refused."""

    async def release(self, lease: str) -> None: ...


WAITING = "waiting"
AI_ONLY = "ai-only"
CHALLENGES_MADE = "challenges"  # by a player in the last minute
CHALLENGES_PENDING = "challenges-pending"
# Seconds a client over an "at once" quota is told to wait: until something it holds ends,
# which no one can foretell.
RETRY_AFTER = 10
# What each quota limits, and what ends it, as its refusal says it.
_REFUSALS = {
    WAITING: "this client already has {cap} matches waiting for players; wait for one to "
    "be joined or to expire",
    AI_ONLY: "this client already has {cap} matches of AI seats only being played; wait for "
    "one to end",
    CHALLENGES_MADE: "this player made {cap} challenges in the last minute; wait for the oldest "
    "to be a minute old",
    CHALLENGES_PENDING: "this player has {cap} challenges pending; wait for one to be "
    "answered or to expire, or withdraw one",
}


def minute_after(oldest: float, now: float) -> int:
    """Whole seconds until ``oldest`` is a minute old and leaves a per-minute count."""
    return max(1, math.ceil(oldest + 60.0 - now))


class QuotaExceeded(ServiceError):
    """The client already holds, or made in its window, as much of a kind as its quota
    allows; ``retry_after``: the seconds until it may try again."""

    def __init__(self, quota: str, cap: int, retry_after: int = RETRY_AFTER) -> None:
        super().__init__(_REFUSALS[quota].format(cap=cap))
        self.quota = quota
        self.retry_after = retry_after


@dataclass(frozen=True)
class Quota:
    """A match's count toward its creator's quota: ``owner`` holds at most ``cap``
    matches of this ``name`` in ``status`` at once."""

    owner: str
    name: str
    status: str
    cap: int


@dataclass(frozen=True)
class OwnerQuotas:
    """A client's "at once" quotas on the matches it creates (0: none)."""

    owner: str
    waiting: int
    ai_only: int

    def of(self, state: MatchState) -> Quota | None:
        """The quota a new match counts toward: a waiting match while it waits for
        players, a match of AI seats only while it is played."""
        if state.status == "waiting" and self.waiting:
            return Quota(self.owner, WAITING, "waiting", self.waiting)
        if all(seat.kind == "ai" for seat in state.seats) and self.ai_only:
            return Quota(self.owner, AI_ONLY, "active", self.ai_only)
        return None
