"""The lean view answer sends what Litestar's own Response would: same status, headers
and bytes, whatever the view holds."""

from __future__ import annotations

import pytest
from litestar import Litestar, Response, get
from litestar.testing import AsyncTestClient

from scopa.api.parsing import view_headers
from scopa.api.view_answer import ViewAnswer
from scopa.contract.views import MatchView, match_view
from scopa.domain.match import Seat, new_match
from scopa.domain.rules import make_rules

SEATS = [Seat("human", None), Seat("ai", "easy")]


def views() -> list[MatchView]:
    state, _ = new_match(make_rules(turn_seconds=30), SEATS, 7, first_dealer=0)
    return [
        match_view("m1", state, 0, deadline=1_000.5),
        match_view("m1", state, None),
        match_view("m1", state, 1),
    ]


@pytest.mark.parametrize("at", range(3))
async def test_a_view_answer_is_litestars_response_byte_for_byte(at: int) -> None:
    view = views()[at]

    @get("/litestar", sync_to_thread=False)
    def litestar_answer() -> Response[MatchView]:
        return Response(view, headers=view_headers(view.version))

    @get("/lean", sync_to_thread=False)
    def lean_answer() -> Response[MatchView]:
        return ViewAnswer(view)

    async with AsyncTestClient(Litestar([litestar_answer, lean_answer])) as client:
        expected = await client.get("/litestar")
        got = await client.get("/lean")
    assert got.status_code == expected.status_code == 200
    assert got.content == expected.content
    assert sorted(got.headers.multi_items()) == sorted(expected.headers.multi_items())
