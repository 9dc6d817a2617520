"""The ``untraced`` mark: a test that runs without the coverage tracer, from its set-up
to its tear-down (pytest-cov's own ``no_cover`` leaves the set-up traced, where a module's
fixture may do the test's work).

Under Python 3.11 a trace function slows all code, measured or not, by two to three
times. The marked tests replay code the rest of the suite already reaches (thousands of
property examples, whole matches checked after every request, a fuzzing run of the
whole API): docs/testing.md says how to check that nothing they reach is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    plugin: Any = item.config.pluginmanager.get_plugin("_cov")
    controller = getattr(plugin, "cov_controller", None)
    if controller is None or not controller.started or not item.get_closest_marker("untraced"):
        yield
        return
    controller.pause()
    try:
        yield
    finally:
        controller.resume()
