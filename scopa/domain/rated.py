"""Rated matches: which format a match is rated in, how its end counts for each seat, and
its players' new ratings (Glicko-2, ``domain.glicko``).

Each rated match is one rating period for each of its players. With 4 players a player is
rated on its own against the other team taken as one opponent: the mean of its two
ratings, and the root mean square of its two deviations. The AI levels play at fixed
ratings from the ladder (docs/ai.md, easy anchored at 1100); their matches never move
them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from scopa.domain.deal import team_of
from scopa.domain.glicko import Rating, Result, rate
from scopa.domain.match import MatchState

FORMATS = ("2p-11", "2p-21", "4p-11", "4p-21")
# A rating is provisional while its deviation is above this.
PROVISIONAL = 110.0
AI_RATINGS: Mapping[str, Rating] = {
    "easy": Rating(1100.0, 50.0),
    "medium": Rating(1272.0, 50.0),
    "hard": Rating(1427.0, 50.0),
    "expert": Rating(1520.0, 50.0),
}
SeatResult = Literal["won", "lost", "none"]


def format_of(players: int, target: int) -> str | None:
    """The format a match of ``players`` to ``target`` is rated in; None: it cannot be."""
    name = f"{players}p-{target}"
    return name if name in FORMATS else None


def result_of(state: MatchState, seat: int) -> SeatResult:
    """How the finished match ended for ``seat``: resigning, a forfeit and a timeout lose;
    a match ended with no winner (aborted, expired) is neither won nor lost."""
    if state.winner is None or state.end_reason in ("aborted", "expired"):
        return "none"
    return "won" if team_of(seat, state.players) == state.winner else "lost"


def counts(state: MatchState) -> bool:
    """Whether the finished rated match changes ratings."""
    return state.rated and result_of(state, 0) != "none"


def new_ratings(state: MatchState, current: Mapping[str, Rating]) -> dict[str, Rating]:
    """The new rating of each player of the finished rated match, from ``current`` (a
    player missing from it starts at the defaults); empty when the match does not count."""
    if not counts(state):
        return {}
    players = state.players
    ratings: list[Rating] = []
    for seat in state.seats:
        if seat.player is not None:
            ratings.append(current.get(seat.player, Rating()))
        else:
            ratings.append(AI_RATINGS.get(seat.level or "", Rating()))
    updated: dict[str, Rating] = {}
    for i, seat in enumerate(state.seats):
        if seat.player is None:
            continue
        rivals = [ratings[j] for j in range(players) if team_of(j, players) != team_of(i, players)]
        score = 1.0 if result_of(state, i) == "won" else 0.0
        updated[seat.player] = rate(ratings[i], [Result(_as_one(rivals), score)])
    return updated


def _as_one(team: list[Rating]) -> Rating:
    if len(team) == 1:
        return team[0]
    mean = sum(r.rating for r in team) / len(team)
    deviation = math.sqrt(sum(r.deviation**2 for r in team) / len(team))
    return Rating(mean, deviation)
