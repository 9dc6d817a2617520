"""The use cases of one process, each over the ports it needs, built in one place."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from scopa.service.ai_work import AiWork, ai_levels
from scopa.service.callers import Callers
from scopa.service.challenges import ChallengeLimits, Challenging
from scopa.service.changes import Changes
from scopa.service.idempotency import Once
from scopa.service.lifecycle import Lifecycle
from scopa.service.lobby import Listings
from scopa.service.moments import Moments
from scopa.service.play import Play
from scopa.service.players import Accounts
from scopa.service.ports import (
    AiPlayer,
    AiTurns,
    Challenges,
    EventBus,
    HintQueue,
    IdempotencyKeys,
    KeptReviews,
    MatchObserver,
    MatchReads,
    MatchRepository,
    Players,
    ReviewQueue,
    Standings,
    Unobserved,
)
from scopa.service.recent import RecentMatches
from scopa.service.records import Records
from scopa.service.reviews import Reviews
from scopa.service.revocation import Revocations
from scopa.service.seating import Seating
from scopa.service.standings import Tables


@dataclass(frozen=True)
class Services:
    """Who is asking (``callers``), and what they may do, by capability."""

    callers: Callers
    changes: Changes  # what every change goes through
    seating: Seating  # create, join, rematch
    play: Play  # a seat's moves
    moments: Moments  # deadlines and expiries
    ai_work: AiWork  # the AI's turns and hints
    records: Records  # views, events, scores, records, reviews
    lobby: Listings
    accounts: Accounts  # players, their tokens
    tables: Tables  # players' matches, the leaderboard
    challenging: Challenging  # challenges and their news
    revocations: Revocations  # what a player token opened ends with it


def build_services(
    matches: MatchRepository,
    bus: EventBus,
    *,
    reads: MatchReads,
    keys: IdempotencyKeys,
    turns: AiTurns,
    kept: KeptReviews,
    players: Players,
    standings: Standings,
    challenges: Challenges,
    ai: AiPlayer | None = None,
    review_queue: ReviewQueue | None = None,
    hint_queue: HintQueue | None = None,
    on_change: Callable[[str], None] | None = None,
    observer: MatchObserver | None = None,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
    lifecycle: Lifecycle | None = None,
    challenge_limits: ChallengeLimits | None = None,
) -> Services:
    """The use cases over the ports. With a ``review_queue`` or a ``hint_queue``, reviews
    and hints are asked of the processes that run AI, not computed here."""
    observer = observer or Unobserved()
    recent = RecentMatches()
    callers = Callers(matches, reads, recent, players, clock)
    changes = Changes(
        matches,
        callers,
        bus,
        recent,
        observer,
        ai=ai,
        lifecycle=lifecycle or Lifecycle(),
        clock=clock,
        on_change=on_change,
    )
    once = Once(keys)
    levels = ai_levels(ai, hint_queue)
    seating = Seating(changes, callers, reads, once, observer, levels, standings)
    reviews = Reviews(matches, kept, reads, turns, ai, review_queue, monotonic)
    return Services(
        callers=callers,
        changes=changes,
        seating=seating,
        play=Play(changes, once, observer),
        moments=Moments(changes, reads),
        ai_work=AiWork(
            changes, reads, turns, observer, ai=ai, hint_queue=hint_queue, monotonic=monotonic
        ),
        records=Records(callers, reads, bus, reviews, observer, monotonic),
        lobby=Listings(reads),
        accounts=Accounts(players, standings, once, clock, bus),
        tables=Tables(standings),
        challenging=Challenging(
            challenges,
            players,
            seating,
            bus,
            limits=challenge_limits or ChallengeLimits(),
            clock=clock,
            monotonic=monotonic,
        ),
        revocations=Revocations(players, bus, clock),
    )
