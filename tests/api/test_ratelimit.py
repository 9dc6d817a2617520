"""Per-client fixed-window limits, their RateLimit headers, and the 429 past them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from litestar import get
from litestar.middleware import DefineMiddleware

from scopa.api.app import ScopaApp
from scopa.api.clients import Clients
from scopa.api.errors import ProblemHandler
from scopa.api.ratelimit import RateLimiter, RateLimits, Standing, headers
from scopa.service.limits import Window
from tests.api.support import Client, problem_type
from tests.fakes import FakeCounts


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_window_is_a_fixed_minute_of_wall_clock_time() -> None:
    clock = Clock(150.0)
    limiter = RateLimiter("create", 2, clock=clock)
    assert limiter.window_of("a") == (Window("create", "a", 2, 2, 180.0), 30.0)
    clock.now = 180.0
    assert limiter.window_of("a") == (Window("create", "a", 3, 2, 240.0), 60.0)


def test_zero_means_off() -> None:
    assert not RateLimiter("create", 0).on
    assert RateLimiter("create", 1).on


def test_headers_are_the_drafts_structured_fields() -> None:
    create = RateLimiter("create", 300)
    joins = RateLimiter("joins", 30)
    assert headers([(create, Standing(299, 59.2)), (joins, Standing(0, 0.4))]) == {
        "RateLimit-Policy": '"create";q=300;w=60, "joins";q=30;w=60',
        "RateLimit": '"create";r=299;t=60, "joins";r=0;t=1',
    }


@get("/limited", opt={"limits": ("a", "off", "b")}, sync_to_thread=False)
def limited() -> str:
    return "ok"


@get("/free", sync_to_thread=False)
def free() -> str:
    return "ok"


@pytest.fixture
def limiters() -> dict[str, RateLimiter]:
    clock = Clock(10.0)  # a fixed moment: no window ends during the test
    return {
        "a": RateLimiter("a", 2, clock=clock),
        "b": RateLimiter("b", 3, clock=clock),
        "off": RateLimiter("off", 0, clock=clock),
    }


@pytest.fixture
async def limited_client(limiters: dict[str, RateLimiter]) -> AsyncIterator[Client]:
    app = ScopaApp(
        route_handlers=[limited, free],
        middleware=[
            DefineMiddleware(RateLimits, limiters=limiters, counts=FakeCounts(), clients=Clients())
        ],
        exception_handlers={Exception: ProblemHandler()},
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def test_every_limit_on_is_counted_and_shown(limited_client: Client) -> None:
    client = limited_client
    first = await client.get("/limited")
    assert first.headers["ratelimit-policy"] == '"a";q=2;w=60, "b";q=3;w=60'
    assert first.headers["ratelimit"] == '"a";r=1;t=50, "b";r=2;t=50'
    # A HEAD looks and counts nothing.
    head = await client.head("/limited")
    assert head.headers["ratelimit"] == '"a";r=1;t=50, "b";r=2;t=50'
    assert (await client.get("/limited")).status_code == 200
    refused = await client.get("/limited")
    assert refused.status_code == 429
    assert problem_type(refused) == "rate-limited"
    assert refused.headers["retry-after"] == "50"
    # The refusal counted nothing under b, which had some left.
    assert refused.headers["ratelimit"] == '"a";r=0;t=50, "b";r=1;t=50'
    assert "ratelimit" not in (await client.get("/free")).headers
