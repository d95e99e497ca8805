"""The step's stopwatch: laps add up per stage, the log line carries them."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest

from workers.engine import stopwatch
from workers.engine.stopwatch import Stopwatch, job_waits


class Ticks:
    def __init__(self, *values: float) -> None:
        self.values = list(values)

    def __call__(self) -> float:
        return self.values.pop(0)


def test_laps_are_the_time_since_the_previous_one_and_add_up_by_name() -> None:
    watch = Stopwatch(queued_s=0.25, clock=Ticks(10.0, 10.1, 10.4, 10.5))
    watch._last = watch.clock()
    watch.lap("clone")
    watch.lap("status")
    watch.lap("clone")  # a second clone lap adds to the first
    assert watch.fields() == {"clone_ms": 200.0, "status_ms": 300.0, "queued_ms": 250.0}


def test_the_report_is_one_line_with_every_figure(caplog: pytest.LogCaptureFixture) -> None:
    watch = Stopwatch.started()
    watch.lap("lease")
    with caplog.at_level(logging.INFO, logger="t"):
        watch.report(logging.getLogger("t"), task="o/r#1")
    (record,) = caplog.records
    assert record.getMessage() == "step timings"
    assert record.task == "o/r#1" and record.lease_ms >= 0 and record.at > 0  # type: ignore[attr-defined]
    json.dumps(record.__dict__, default=str)


def test_work_beside_the_laps_is_reported_apart() -> None:
    watch = Stopwatch(clock=Ticks(1.0, 1.5))
    watch._last = watch.clock()
    watch.lap("clone")
    watch.beside["admit"] = 0.125
    assert watch.fields() == {"clone_ms": 500.0, "beside_admit_ms": 125.0}


class _Job:
    def __init__(self, enqueued_at: datetime | None, started_at: datetime | None) -> None:
        self.enqueued_at, self.started_at = enqueued_at, started_at


def test_a_jobs_wait_is_split_into_the_queue_and_rqs_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RQ stores naive UTC times; the pick-up and fork end when RQ starts the job."""
    enqueued = datetime(2026, 1, 1, 12, 0, 0)
    started = enqueued + timedelta(milliseconds=18)
    at = lambda: (started + timedelta(milliseconds=7)).replace(tzinfo=UTC)  # noqa: E731
    monkeypatch.setattr(stopwatch, "get_current_job", lambda: _Job(enqueued, started))
    assert job_waits(at) == pytest.approx((0.018, 0.007))
    monkeypatch.setattr(stopwatch, "get_current_job", lambda: _Job(enqueued, None))
    assert job_waits(at) == pytest.approx((0.025, 0.0))
    monkeypatch.setattr(stopwatch, "get_current_job", lambda: None)
    assert job_waits(at) == (0.0, 0.0)
