"""The leaderboard of a format: players by rating, best first."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Request, get
from litestar.params import QueryParameter

from scopa.api.controllers.params import Service
from scopa.api.openapi import problems
from scopa.api.parsing import query_integers
from scopa.contract.players import Leaderboard
from scopa.service.ids import CURSOR_PATTERN


@get(
    "/v1/leaderboard",
    operation_id="getLeaderboard",
    tags=["players"],
    summary="Players by rating in a format, best first, established and provisional apart",
    description="Established players (deviation at most 110) unless `provisional=true`; "
    "ties by handle; ranks count on across pages.",
    responses=problems(400, 503),
)
async def leaderboard(
    request: Request[Any, Any, Any],
    service: Service,
    format: Annotated[
        Literal["2p-11", "2p-21", "4p-11", "4p-21"],
        QueryParameter(description="The format: players, then target"),
    ],
    provisional: Annotated[
        bool, QueryParameter(description="List the provisional players instead")
    ] = False,
    limit: Annotated[int, QueryParameter(ge=1, le=100, description="Players to a page")] = 20,
    cursor: Annotated[
        str | None,
        QueryParameter(
            description="next_cursor of the previous page",
            required=False,
            schema_extra={"pattern": CURSOR_PATTERN},
        ),
    ] = None,
) -> Leaderboard:
    query_integers(request, "limit")
    return await service.tables.leaderboard(format, provisional, limit, cursor)
