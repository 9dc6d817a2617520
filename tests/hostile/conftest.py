"""Shared by the hostile tests: the reliability record each of them leaves behind.

When ``SCOPA_RELIABILITY_LOG`` names a file, every hostile test that asks for the
``reliability_log`` fixture appends ONE JSON line to it when it ends:
``{"check", "cases", "requests", "faults", "moves_lost", "failures", "notes"}``.
The record is ``tests.support.reliability.ReliabilityRecord`` (import it from there for
annotations); the test fills in the figures as it goes; a test that fails counts at
least one failure whatever it wrote, and a skipped test writes nothing.
``bench/reliability.py`` renders the lines as docs/reliability.md.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.support.reliability import LOG_VARIABLE, ReliabilityRecord

__all__ = ["ReliabilityRecord", "reliability_log"]

_OUTCOME = pytest.StashKey[str]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[_OUTCOME] = report.outcome
    return report


@pytest.fixture
def reliability_log(request: pytest.FixtureRequest) -> Iterator[ReliabilityRecord]:
    """The test's record; set ``check`` to a short name of what it verifies."""
    record = ReliabilityRecord(check=request.node.name)
    yield record
    path = os.environ.get(LOG_VARIABLE)
    outcome = request.node.stash.get(_OUTCOME, "skipped")
    if not path or outcome == "skipped":
        return
    if outcome == "failed":
        record.failures = max(record.failures, 1)
    record.append_to(Path(path))
