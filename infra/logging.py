"""JSON log lines on stderr, each with the request id it was logged for.

Nothing here logs a request's query string or headers: the access log (api.middleware)
records the path alone, and uvicorn's own access log, which prints query strings (and so
``?token=``), is switched off.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TextIO

import msgspec

# Fields the access log and others attach with ``extra=``; anything else stays out.
EXTRA_FIELDS = ("method", "path", "status", "duration_ms")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for name in EXTRA_FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return msgspec.json.encode(entry).decode()


def configure(
    level: str = "INFO", stream: TextIO | None = None, filters: Sequence[logging.Filter] = ()
) -> None:
    """``filters`` stamp records with what the formatter prints (the HTTP layer's request
    id), so this module needs to know nothing of where it comes from."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
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
