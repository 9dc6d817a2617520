"""The per-client fixed-window limiter behind 429 on match creation."""

from __future__ import annotations

import pytest

from api.ratelimit import RateLimiter


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_client_over_the_limit_waits_for_the_next_window() -> None:
    clock = Clock(120.0)
    limiter = RateLimiter(2, window=60, clock=clock)
    assert limiter.hit("a") is None
    clock.now = 150.0
    assert limiter.hit("a") is None
    assert limiter.hit("a") == pytest.approx(30.0)
    assert limiter.hit("b") is None
    clock.now = 180.0
    assert limiter.hit("a") is None


def test_refused_requests_do_not_extend_the_wait() -> None:
    clock = Clock(0.0)
    limiter = RateLimiter(1, window=60, clock=clock)
    assert limiter.hit("a") is None
    for _ in range(5):
        assert limiter.hit("a") == pytest.approx(60.0)
    clock.now = 60.0
    assert limiter.hit("a") is None


def test_zero_means_no_limit() -> None:
    limiter = RateLimiter(0)
    assert all(limiter.hit("a") is None for _ in range(1000))
