"""Log lines inside the event loop are written once per loop turn; others at once."""

from __future__ import annotations

import asyncio
import io
import logging

from bot.logs import JsonFormatter, TurnHandler


class Counted(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def logger_to(stream: Counted) -> logging.Logger:
    handler = TurnHandler(stream)  # type: ignore[arg-type]
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(f"test.turns.{id(stream)}")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


def test_outside_a_loop_every_line_is_flushed() -> None:
    stream = Counted()
    log = logger_to(stream)
    log.info("one")
    log.info("two")
    assert stream.flushes == 2
    assert stream.getvalue().count("\n") == 2


async def test_inside_a_loop_a_turn_is_flushed_once_and_errors_at_once() -> None:
    stream = Counted()
    log = logger_to(stream)
    for n in range(3):
        log.info("delivery", extra={"n": n})
    assert stream.flushes == 0
    await asyncio.sleep(0)
    assert stream.flushes == 1
    log.error("cannot store delivery")
    assert stream.flushes == 2
    assert stream.getvalue().count("\n") == 4
