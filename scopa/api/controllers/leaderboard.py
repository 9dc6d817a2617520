"""The leaderboard of a format: players by rating, best first."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.params import QueryParameter

from scopa.api.controllers.params import Cursor, PageLimit, Service
from scopa.api.controllers.players import Format
from scopa.api.openapi import problems
from scopa.api.parsing import query_integers
from scopa.contract.players import Leaderboard


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
    format: Annotated[Format, QueryParameter(description="The format: players, then target")],
    provisional: Annotated[
        bool, QueryParameter(description="List the provisional players instead")
    ] = False,
    limit: PageLimit = 20,
    cursor: Cursor = None,
) -> Leaderboard:
    query_integers(request, "limit")
    return await service.tables.leaderboard(format, provisional, limit, cursor)
