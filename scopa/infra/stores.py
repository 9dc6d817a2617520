"""The SQL stores of one database, by capability, over one ``SqlDatabase``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from scopa.infra.ai_turns import SqlAiTurns
from scopa.infra.answers import CLAIM_TTL, SqlAnswers
from scopa.infra.challenges import SqlChallenges
from scopa.infra.hints import SqlHints
from scopa.infra.match_reads import SqlMatchReads
from scopa.infra.matches import SqlMatches
from scopa.infra.players import SqlPlayers
from scopa.infra.reviews import SqlReviews
from scopa.infra.sql_store import SqlDatabase
from scopa.infra.standings import SqlStandings


@dataclass(frozen=True)
class SqlStores:
    db: SqlDatabase
    matches: SqlMatches
    reads: SqlMatchReads
    answers: SqlAnswers
    ai_turns: SqlAiTurns
    hints: SqlHints
    reviews: SqlReviews
    players: SqlPlayers
    standings: SqlStandings
    challenges: SqlChallenges

    async def settle(self) -> None:
        """Wait for the calls given up on to let go of their connections."""
        await self.db.settle()


def sql_stores(
    engine: AsyncEngine,
    *,
    notify: str | None = None,
    clock: Callable[[], float] = time.time,
    claim_ttl: float = CLAIM_TTL,
    ai_only_pace: float = 0.0,
) -> SqlStores:
    """The stores over ``engine``: ``notify`` (Postgres only) names the channel each change
    is announced on when it commits; ``clock`` (unix seconds) the leases' and timeouts'
    time; ``claim_ttl`` how long an Idempotency-Key's claim holds with no answer;
    ``ai_only_pace`` the seconds between the moves of a match of AI seats only."""
    db = SqlDatabase(engine, notify=notify, clock=clock)
    return SqlStores(
        db,
        SqlMatches(db, ai_only_pace=ai_only_pace),
        SqlMatchReads(db),
        SqlAnswers(db, claim_ttl=claim_ttl),
        SqlAiTurns(db),
        SqlHints(db),
        SqlReviews(db),
        SqlPlayers(db),
        SqlStandings(db),
        SqlChallenges(db),
    )
