"""One JSON object per log line; fields come from `extra={...}`, secrets never do.

The receiver logs a line per delivery, so formatting is kept cheap: the timestamp's
seconds are formatted once per second, the line is encoded by msgspec, and records skip
what the lines never show (caller, thread and process names).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

import msgspec

# Attributes every LogRecord has; anything else was passed through `extra`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "taskName",
}
_ENCODE = msgspec.json.Encoder(enc_hook=str)


class JsonFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__()
        self._second = -1
        self._stamp = ""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": self._timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD:
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        try:
            return _ENCODE.encode(line).decode()
        except (TypeError, ValueError, OverflowError):  # what msgspec cannot write
            return json.dumps(line, default=str)

    def _timestamp(self, created: float) -> str:
        """ISO 8601 in UTC with milliseconds, e.g. 2024-05-02T10:41:07.123+00:00."""
        second = int(created)
        if second != self._second:
            self._second = second
            self._stamp = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self._stamp}.{int((created - second) * 1000):03d}+00:00"


def configure_logging(level: str = "INFO") -> None:
    """Send JSON lines to stderr; call once from a process entry point."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
    # The lines show none of these; looking them up costs every record (logging's own
    # documented switches).
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logging._srcfile = None  # no caller lookup (pathname, lineno, funcName)
