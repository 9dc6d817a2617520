"""The scoring on the wire: a finished deal's breakdown and the tally of the deal in
progress, described."""

from __future__ import annotations

import functools
from typing import Annotated

import msgspec
from msgspec import Meta
from msgspec.structs import astuple

from scopa.domain import scoring as domain


class Points(msgspec.Struct, frozen=True):
    sweeps: Annotated[int, Meta(description="1 for each sweep")]
    cards: Annotated[int, Meta(description="1 for 21 or more of the 40 cards, else 0")]
    diamonds: Annotated[int, Meta(description="1 for 6 or more of the 10 diamonds, else 0")]
    settebello: Annotated[int, Meta(description="1 for the 7 of diamonds, else 0")]
    primiera: Annotated[
        int, Meta(description="1 for the higher primiera (equal totals: nobody), else 0")
    ]
    king_of_diamonds: Annotated[
        int,
        Meta(description="1 for the king of diamonds under the `king_of_diamonds` option, else 0"),
    ]
    diamond_sequence: Annotated[
        int,
        Meta(description="The sequence's value under the `diamond_sequence` option, else 0"),
    ]


class TeamDealScore(msgspec.Struct, frozen=True):
    team: Annotated[int, Meta(description="The team's number, 0 or 1")]
    cards: Annotated[int, Meta(description="Cards the team took this deal, leftovers included")]
    diamonds: Annotated[int, Meta(description="Diamonds among those cards")]
    settebello: Annotated[bool, Meta(description="Whether those cards include the 7 of diamonds")]
    primiera: Annotated[
        int | None,
        Meta(
            description="The best primiera value of each suit, summed (7=21, 6=18, A=16, "
            "5=15, 4=14, 3=13, 2=12, J Q K=10); null when the team lacks a suit"
        ),
    ]
    sweeps: Annotated[int, Meta(description="Sweeps the team scored this deal")]
    king_of_diamonds: Annotated[
        bool,
        Meta(description="Whether the team took the king of diamonds, whatever the options"),
    ]
    diamond_sequence: Annotated[
        int,
        Meta(
            description="The value of the team's diamonds in unbroken order from A-2-3 (3, "
            "then one more for each of 4 5 6 7 J Q K in turn), whatever the options; 0 "
            "without A-2-3"
        ),
    ]
    points: Annotated[Points, Meta(description="The points the deal scored, by category")]
    total: Annotated[int, Meta(description="The sum of `points`")]


class DealScore(msgspec.Struct, frozen=True):
    deal: Annotated[int, Meta(description="The deal's number, from 1")]
    teams: Annotated[
        tuple[TeamDealScore, ...],
        Meta(description="Each team's counts and points, by team number"),
    ]
    scores: Annotated[tuple[int, ...], Meta(description="Each team's match points after this deal")]


class TeamTally(msgspec.Struct, frozen=True):
    team: Annotated[int, Meta(description="The team's number, 0 or 1")]
    cards: Annotated[int, Meta(description="Cards in the team's pile so far this deal")]
    diamonds: Annotated[int, Meta(description="Diamonds among them")]
    settebello: Annotated[bool, Meta(description="Whether they include the 7 of diamonds")]
    primiera: Annotated[
        int | None,
        Meta(description="The primiera of those cards so far; null while a suit is missing"),
    ]
    sweeps: Annotated[int, Meta(description="Sweeps the team has scored this deal")]
    clinched: Annotated[
        tuple[str, ...],
        Meta(
            description="The points this team can no longer lose this deal: `cards` (21 "
            "held), `diamonds` (6 held), `settebello`, `king_of_diamonds` (option on, king "
            "held), `primiera` (once no card still to come can change it)"
        ),
    ]


class Tally(msgspec.Struct, frozen=True):
    deal: Annotated[int, Meta(description="The deal in progress")]
    teams: Annotated[
        tuple[TeamTally, ...], Meta(description="Each team's counts so far, by team number")
    ]


def team_score_view(team: domain.TeamDealScore) -> TeamDealScore:
    return TeamDealScore(
        team=team.team,
        cards=team.cards,
        diamonds=team.diamonds,
        settebello=team.settebello,
        primiera=team.primiera,
        sweeps=team.sweeps,
        king_of_diamonds=team.king_of_diamonds,
        diamond_sequence=team.diamond_sequence,
        # The twins have the same fields in the same order (tests/unit/test_contract_twins.py).
        points=Points(*astuple(team.points)),
        total=team.total,
    )


@functools.lru_cache(maxsize=4096)
def deal_score_view(score: domain.DealScore) -> DealScore:
    """Kept for the matches in play: every view of every move shows each finished deal,
    and looking one up costs a fifth of building it."""
    return DealScore(score.deal, tuple(map(team_score_view, score.teams)), score.scores)


def tally_view(tally: domain.Tally) -> Tally:
    return Tally(tally.deal, tuple(TeamTally(*astuple(team)) for team in tally.teams))
