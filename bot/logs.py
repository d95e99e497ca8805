"""One JSON object per log line; fields come from `extra={...}`, secrets never do.

The receiver logs a line per delivery, so formatting is kept cheap: the timestamp's
seconds are formatted once per second, the line is encoded by msgspec, and records skip
what the lines never show (caller, thread and process names).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

import msgspec

# Attributes every LogRecord has; anything else was passed through `extra`.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "taskName",
}
_ENCODE = msgspec.json.Encoder(enc_hook=str)


def _no_caller() -> dict[str, object]:
    """What LogRecord's own constructor sets on a record logged without a caller lookup
    (``logging._srcfile`` is None), without arguments, threads or processes; the
    attributes every record sets for itself are left out."""
    record = logging.LogRecord("", 0, "(unknown file)", 0, "", (), None, "(unknown function)")
    own = {"name", "msg", "levelno", "levelname", "created", "msecs", "relativeCreated"}
    found = {key: value for key, value in vars(record).items() if key not in own}
    unlogged = ("thread", "threadName", "process", "processName", "taskName")
    return found | {key: None for key in unlogged if key in found}


_NO_CALLER = _no_caller()
_STARTED = time.time()


class Line(logging.LogRecord):
    """A record for a line logged on a hot path, given its fields. It has every
    attribute of a LogRecord (formatters read them from its ``__dict__``), but takes
    them from ``_NO_CALLER`` instead of working them out. It goes through the logger's
    level, filters and handlers like any record."""

    def __init__(self, logger: str, level: int, msg: str, fields: Mapping[str, object]) -> None:
        created = time.time()
        self.__dict__.update(_NO_CALLER)
        self.name = logger
        self.levelno = level
        self.levelname = logging.getLevelName(level)
        self.msg = msg
        self.created = created
        self.msecs = (created - int(created)) * 1000
        self.relativeCreated = (created - _STARTED) * 1000
        self.__dict__.update(fields)


def log_line(logger: logging.Logger, level: int, msg: str, fields: Mapping[str, object]) -> None:
    """``logger.log(level, msg, extra=fields)``, as a :class:`Line` (the fields, as with
    ``extra``, must not be named as a LogRecord's own attributes)."""
    if logger.isEnabledFor(level):
        logger.handle(Line(logger.name, level, msg, fields))


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


class TurnHandler(logging.StreamHandler[TextIO]):
    """A stream handler that, inside a running event loop, writes the lines of one loop
    turn together right after it (one write for the deliveries answered in that turn)
    instead of one write each. Elsewhere, and for warnings and errors, a line is written
    at once."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        self._scheduled = False
        self._hold = False

    def emit(self, record: logging.LogRecord) -> None:
        self._hold = record.levelno < logging.WARNING and _in_event_loop()
        super().emit(record)  # writes the line, then calls flush()

    def flush(self) -> None:
        if self._hold:
            self._hold = False
            if not self._scheduled:
                self._scheduled = True
                asyncio.get_running_loop().call_soon(self._flush_turn)
            return
        super().flush()

    def _flush_turn(self) -> None:
        self._scheduled = False
        self.acquire()
        try:
            super().flush()
        finally:
            self.release()


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _stderr() -> TextIO:
    """fd 2 with a buffer of its own: `sys.stderr` writes every line as it comes."""
    try:
        raw = io.FileIO(sys.stderr.fileno(), "w", closefd=False)
    except (AttributeError, OSError, ValueError):  # replaced by something without an fd
        return sys.stderr
    return io.TextIOWrapper(io.BufferedWriter(raw, 1 << 16), encoding="utf-8", errors="replace")


def configure_logging(level: str = "INFO") -> None:
    """Send JSON lines to stderr; call once from a process entry point."""
    handler = TurnHandler(_stderr())
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
