"""Reviews: the coach's judgement of every card one seat played in a finished match."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get
from litestar.params import QueryParameter

from scopa.api.controllers.params import SEAT_TOKEN, MatchId, Service, identify
from scopa.api.head import Unsent, is_head
from scopa.api.openapi import AI_UNAVAILABLE_503, RATE_LIMIT_HEADERS, problems
from scopa.api.parsing import query_integers
from scopa.api.ratelimit import REVIEWS
from scopa.contract.review import Review, review_view


class ReviewController(Controller):
    path = "/v1/matches/{match_id:str}/review"
    tags = ["matches"]
    security = SEAT_TOKEN

    @get(
        operation_id="getReview",
        summary="What the expert would have played, card by card, for one seat",
        description="For a finished match (409 before; 404 for a seat it lacks), each card "
        "`seat` played, in order, with the move the expert would have chosen knowing only "
        "what that seat knew then "
        "(its hand, the table, every card played and by whom, and under reveal_ai_hands "
        "the AI hands shown; never the cards it could not see), and how many expected deal "
        "points the play gave away against it. No token needed. The first request computes "
        "it (a few seconds for 2 players), requests meanwhile wait for the same "
        "computation, and later ones read it back. Reviews per client address per minute "
        "are limited (429).",
        responses=problems(
            400,
            401,
            404,
            409,
            429,
            503,
            text={503: AI_UNAVAILABLE_503},
        ),
        response_headers=RATE_LIMIT_HEADERS,
        opt={"limits": (REVIEWS,)},
    )
    async def review(
        self,
        request: Request[Any, Any, Any],
        service: Service,
        match_id: MatchId,
        seat: Annotated[int, QueryParameter(ge=0, le=3, description="The seat to review")],
    ) -> Response[Review]:
        query_integers(request, "seat")
        caller = await identify(request, service, match_id)
        # A seat in 0..3 that the match lacks is a 404 no-such-seat, as for a join: no
        # document can say which seats a match has, so it is not the request's form.
        review = await service.records.review(caller, seat, compute=not is_head())
        if review is None:
            return Unsent("application/json")
        return Response(review_view(review))
