"""A background loop's failures, told once when they begin and once when they end."""

from __future__ import annotations

import logging


class QuietRetries:
    """For a loop that retries a few times a second: through an outage, a line each time
    would drown the log."""

    def __init__(self, log: logging.Logger, failing: str, back: str) -> None:
        self._log = log
        self._failing_message = failing
        self._back_message = back
        self._failing = False

    def failed(self) -> None:
        """Called from an ``except`` block: the first failure is logged with its trace."""
        if not self._failing:
            self._log.warning(self._failing_message, exc_info=True)
        self._failing = True

    def succeeded(self) -> None:
        if self._failing:
            self._log.info(self._back_message)
        self._failing = False
