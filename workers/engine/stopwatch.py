"""Where a step's time goes before its agent call: one log line per step that calls one.

    watch = Stopwatch.started(queued_s=...)   # how long the step's job waited to start
    watch.lap("clone")                        # the time since the last lap is "clone"
    watch.beside["admit"] = 0.03              # work done in a thread meanwhile (seconds)
    watch.report(log, task=key)               # "step timings": queued_ms, clone_ms, ...,
                                              # beside_admit_ms (not a lap: no sum with them)

The line lets an operator (and `make bench`) see, per step, how long the job waited in
the queue and what each stage before the model request cost, without a profiler.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from rq import get_current_job


def job_waits(now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> tuple[float, float]:
    """The current RQ job's wait in the queue (enqueued until RQ started it: the worker's
    pick-up and its fork of a work-horse) and its start (RQ's own bookkeeping in the
    work-horse until the job's code ran), in seconds; zeros outside a job."""
    job = get_current_job()
    if job is None or job.enqueued_at is None:
        return 0.0, 0.0
    enqueued = job.enqueued_at.replace(tzinfo=job.enqueued_at.tzinfo or UTC)
    started = (
        job.started_at.replace(tzinfo=job.started_at.tzinfo or UTC) if job.started_at else None
    )
    at = now()
    if started is None:
        return max(0.0, (at - enqueued).total_seconds()), 0.0
    waited = max(0.0, (started - enqueued).total_seconds())
    return waited, max(0.0, (at - started).total_seconds())


@dataclass
class Stopwatch:
    queued_s: float | None = None
    clock: Callable[[], float] = time.perf_counter
    laps: dict[str, float] = field(default_factory=dict)
    beside: dict[str, float] = field(default_factory=dict)  # seconds, beside the laps
    _last: float = 0.0

    @classmethod
    def started(cls, queued_s: float | None = None) -> Stopwatch:
        watch = cls(queued_s)
        watch._last = watch.clock()
        return watch

    def lap(self, name: str) -> None:
        now = self.clock()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now

    def fields(self) -> dict[str, float]:
        figures = {f"{name}_ms": round(s * 1000, 1) for name, s in self.laps.items()}
        figures |= {f"beside_{name}_ms": round(s * 1000, 1) for name, s in self.beside.items()}
        if self.queued_s is not None:
            figures["queued_ms"] = round(self.queued_s * 1000, 1)
        return figures

    def report(self, log: logging.Logger, **context: object) -> None:
        """Log the laps so far, with the wall-clock time of this moment (``at``)."""
        log.info("step timings", extra={**context, **self.fields(), "at": time.time()})
