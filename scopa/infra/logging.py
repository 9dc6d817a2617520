"""Log lines on stderr: JSON, each with the request id it was logged for, or short lines
a person reads when stderr is a terminal (``SCOPA_LOG_FORMAT`` chooses).

Nothing here logs a request's query string or headers: the access log (api.middleware)
records the path alone, and uvicorn's own access log, which prints query strings (and so
``?token=``), is switched off.
"""

from __future__ import annotations

import logging
import math
import sys
import time
from collections.abc import Sequence
from typing import TextIO

import msgspec

# Fields the access log and others attach with ``extra=``; anything else stays out.
EXTRA_FIELDS = ("method", "path", "status", "duration_ms")
# What ``SCOPA_LOG_FORMAT`` may say: ``auto`` is text on a terminal, JSON elsewhere.
LOG_FORMATS = ("auto", "json", "text")


class JsonFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__()
        # Every request logs a line: its second, written out, is kept for the next ones.
        self._second = -1
        self._second_text = ""

    def format(self, record: logging.LogRecord) -> str:
        fields = record.__dict__
        entry: dict[str, object] = {
            "time": self._time(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": fields.get("request_id"),
        }
        for name in EXTRA_FIELDS:
            if name in fields:
                entry[name] = fields[name]
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return msgspec.json.encode(entry).decode()

    def _time(self, created: float) -> str:
        """``datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")``,
        to the digit: rounded to the microsecond as datetime does (half to even), then cut
        to the millisecond."""
        fraction, whole = math.modf(created)
        micros = round(fraction * 1e6)
        if micros >= 1_000_000:
            micros -= 1_000_000
            whole += 1
        second = int(whole)
        if second != self._second:
            self._second = second
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self._second_text}.{micros // 1000:03d}+00:00"


class TextFormatter(logging.Formatter):
    """One short line a record, for a person at a terminal: the local time, the level
    when it is not INFO, the message's first line (a migration's title, not its whole
    text), an access line's time taken; a traceback in full."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record.__dict__
        when = time.strftime("%H:%M:%S", time.localtime(record.created))
        level = "" if record.levelno == logging.INFO else f"{record.levelname} "
        message = record.getMessage().split("\n", 1)[0]
        if "duration_ms" in fields:
            message = f"{message} ({fields['duration_ms']} ms)"
        line = f"{when} {level}{message}"
        if record.exc_info:
            line = f"{line}\n{self.formatException(record.exc_info)}"
        return line


def formatter_for(log_format: str, stream: TextIO) -> logging.Formatter:
    """``log_format`` as ``SCOPA_LOG_FORMAT`` says it, for lines written to ``stream``."""
    text = log_format == "text" or (log_format == "auto" and stream.isatty())
    return TextFormatter() if text else JsonFormatter()


def configure(
    level: str = "INFO",
    stream: TextIO | None = None,
    filters: Sequence[logging.Filter] = (),
    log_format: str = "json",
) -> None:
    """``filters`` stamp records with what the formatter prints (the HTTP layer's request
    id), so this module needs to know nothing of where it comes from."""
    # What the formatter never prints, each record would otherwise look up: the thread
    # and the process (the logging HOWTO's "Optimization"), most of an access-log line's
    # cost. The calling frame stays, for pytest's and other formatters that print it.
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter_for(log_format, stream))
    for stamp in filters:
        handler.addFilter(stamp)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # httpx logs every URL it calls at INFO, query strings and all; aiosqlite every
    # statement with its values at DEBUG, match states and so every hand among them.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("aiosqlite").setLevel(logging.INFO)
