"""Waiting on AI work asked of the processes that run AI, by a process that runs none
(the API with SCOPA_AI_IN_PROCESS off): reviews and hints.

The asker looks for the answer after each ``pause``: a sleep, or for a hint a wait on the
event bus, which the worker's answer ends at once. It gives up (``AiUnavailable``)
when for ``UNATTENDED_SECONDS`` nobody held the work and no process said it runs AI (a
worker that dies is silent for 10 s before it no longer counts, and its lease lapses in
2 s), or after ``wait_seconds`` in all: the workers may be busy, or none may take it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from scopa.service.errors import AiUnavailable

T = TypeVar("T")

UNATTENDED_SECONDS = 3.0
# Whether the work is held, or any process runs AI, is looked at this often.
ATTENDED_CHECK_SECONDS = 0.5
REVIEW_POLL_SECONDS = 0.25
REVIEW_WAIT_SECONDS = 30.0
# The answer's notice wakes the asker: the poll only covers a notice lost on the way.
HINT_POLL_SECONDS = 0.25
HINT_WAIT_SECONDS = 10.0


async def answered(
    answer: Callable[[], Awaitable[T | None]],
    held: Callable[[], Awaitable[bool]],
    capacity: Callable[[], Awaitable[int]],
    monotonic: Callable[[], float],
    pause: Callable[[], Awaitable[object]],
    wait_seconds: float,
) -> T:
    """``answer()`` once it is not None, or AiUnavailable."""
    start = attended = checked = monotonic()
    while True:
        await pause()
        found = await answer()
        if found is not None:
            return found
        now = monotonic()
        if now - checked >= ATTENDED_CHECK_SECONDS:
            checked = now
            if await held() or await capacity():
                attended = now
        if now - attended >= UNATTENDED_SECONDS:
            raise AiUnavailable("no process runs AI now; ask again later")
        if now - start >= wait_seconds:
            raise AiUnavailable(f"no AI process answered in {wait_seconds:.0f} s; ask again")
