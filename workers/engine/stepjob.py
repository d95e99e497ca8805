"""The `run_step` job around a step: take the task's lease, load the task, let the
``Driver`` run the step, and hand on what comes next, as the holder (docs/design.md §7).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from workers.engine.driver import Driver
from workers.engine.reviews import reviews_waiting
from workers.engine.session import open_session
from workers.engine.stopwatch import Stopwatch, job_waits
from workers.engine.wavestep import WaveJobs
from workers.runtime import Runtime
from workers.tasks.lease import Fenced, Lease, TaskBusy
from workers.tasks.record import TaskRecord, TaskStatus

log = logging.getLogger("agentium.steps")

Schedule = Callable[[TaskRecord, str], object]  # the task's next step, and why ("" = chain)
Recheck = Callable[[str, float], object]  # a step of the task later: key, seconds from now


def advance(
    rt: Runtime,
    key: str,
    schedule: Schedule,
    recheck: Recheck,
    jobs: WaveJobs | None = None,
    *,
    rechecking: bool = False,
) -> str:
    """Run one step of the task `key`; returns a short word for the job's result.

    While a wave's subtasks run (``jobs`` launches them), no next agent step is scheduled:
    the subtask that ends last asks for the join."""
    queued, starting = job_waits()
    watch = Stopwatch.started(queued)
    watch.laps["job_start"] = starting
    try:
        with rt.store.leased(key) as lease:
            watch.lap("lease")
            return _step(rt, key, lease, schedule, jobs, watch)
    except TaskBusy:
        # A live holder hands on what arrived meanwhile (see _step). If it died, its
        # lease expires within LEASE_TTL_S: one re-check, just after that, carries on. A
        # re-check that finds the lease held again stops: that holder is alive.
        if not rechecking:
            recheck(key, rt.store.lease_left(key))
        return "busy"
    except Fenced as lost:
        why = type(lost).__name__
        log.warning(
            "step ended: the task is not this step's any more", extra={"task": key, "why": why}
        )
        return "lease_lost"


def _step(
    rt: Runtime,
    key: str,
    lease: Lease,
    schedule: Schedule,
    jobs: WaveJobs | None,
    watch: Stopwatch,
) -> str:
    record = rt.store.get(key)
    if record is None:
        return "no_task"
    if record.status is TaskStatus.FINISHED and reviews_waiting(rt, record):
        record.status = TaskStatus.ACTIVE  # a human review starts a new round
    if record.status is not TaskStatus.ACTIVE:
        return f"task_{record.status.value}"
    watch.lap("load")
    driver = Driver(rt, open_session(rt, record, lease), lease, jobs, watch)
    try:
        result = driver.run()
        if driver.opening is not None:
            driver.opening.settle()  # a first step that made no agent call
    finally:
        if driver.opening is not None:
            driver.opening.close()  # nothing it began outlives the lease
    hand_on(rt, driver, schedule)
    return result


def retries_effects(driver: Driver) -> bool:
    """An ended task whose last effects failed tries them again, a bounded number of
    times in a row (``limits.recovery.effect_failures``); a paused one waits for a person."""
    record = driver.record
    state = record.workflow
    limit = driver.config.limits.recovery.effect_failures
    waits = bool(record.pending_effects) and record.status is TaskStatus.ACTIVE
    return (
        waits
        and state.awaiting is None
        and state.paused is None
        and (state.recovery.effect_failures < limit)
    )


def hand_on(rt: Runtime, driver: Driver, schedule: Schedule) -> None:
    """Schedule what comes next, as the holder: the next agent call (unless a wave's
    subtasks run: the last one asks for the join); else the review round that reviews sent
    meanwhile start; else, for an ended task, its failed effects again; else a step for
    commands that arrived during this one (their own jobs found the lease held and left
    them to the holder)."""
    record = driver.record
    if driver.wants_agent() and not driver.wave_running:
        schedule(record, "")
    elif record.status is TaskStatus.FINISHED and reviews_waiting(rt, record):
        schedule(record, f"r{record.version}")
    elif retries_effects(driver):
        schedule(record, f"e{record.version}")
    elif (waiting := rt.store.inbox_size(record.key)) > driver.kept:
        schedule(record, f"i{record.version}-{waiting}")
