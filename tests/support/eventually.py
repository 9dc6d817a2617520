"""Waiting for what a test expects to happen: asked again and again until a deadline,
instead of a fixed sleep that is too long on a fast machine and too short on a slow one."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, overload

T = TypeVar("T")


@overload
async def eventually(
    check: Callable[[], Awaitable[T]], *, seconds: float = ..., every: float = ...
) -> T: ...


@overload
async def eventually(check: Callable[[], T], *, seconds: float = ..., every: float = ...) -> T: ...


async def eventually(
    check: Callable[[], T | Awaitable[T]], *, seconds: float = 10.0, every: float = 0.01
) -> T:
    """The first truthy answer of ``check()`` (awaited when it is awaitable); the test
    fails once ``seconds`` pass without one."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        assert time.monotonic() < deadline, f"not so within {seconds} s (last: {value!r})"
        await asyncio.sleep(every)


def until(check: Callable[[], T], *, seconds: float = 10.0, every: float = 0.01) -> T:
    """``eventually`` for a test without an event loop: the first truthy ``check()``."""
    deadline = time.monotonic() + seconds
    while not (value := check()):
        assert time.monotonic() < deadline, f"not so within {seconds} s (last: {value!r})"
        time.sleep(every)
    return value
