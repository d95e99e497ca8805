"""Step jobs: deterministic ids so a re-enqueue is harmless, and a sweep for lost ones.

A task counts as in flight while its lease lives (docs/design.md §7), however long its
agent call takes: the sweep leaves it alone, and a step that finds the lease held leaves
what it came for to the holder, with one re-check just after a dead holder's lease would
have expired.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError
from rq.job import JobStatus

from workers.tasks.lease import LEASE_TTL_S
from workers.tasks.record import TaskRecord, TaskStatus, utcnow
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.scheduling")

STEP_JOB = "workers.jobs.run_step"
SUBTASK_JOB = "workers.jobs.run_subtask"
SWEEP_JOB = "workers.jobs.sweep"
STEP_TIMEOUT_S = 3 * 3600  # longer than any one agent run (config/agents.yml run_limits)
STALE_AFTER = timedelta(minutes=3)  # no progress, no lease, no job for this long: re-enqueue
SWEEP_EVERY = timedelta(minutes=1)
# A killed work-horse's job is retried at once (interval 0 needs no scheduler, which may
# have died with the worker); the step then waits for the dead holder's lease to expire.
STEP_RETRY = Retry(max=3, interval=[0, 60, 300])
PENDING = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.STARTED, JobStatus.DEFERRED)


def step_job_id(key: str, step: int, cause: str = "") -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"step-{digest}-{step}" + (f"-{cause}" if cause else "")


def schedule_step(queue: Queue, record: TaskRecord, cause: str = "") -> bool:
    """Enqueue the task's next step; False when that very job is already known.

    The chain of steps uses the step counter alone; an event (a command, a review, the
    sweep) adds its cause, so it is never mistaken for a step that already ran. Two jobs
    for one task are harmless: the lease serialises them and each reads the stored state.
    """
    job_id = step_job_id(record.key, record.steps, cause)
    return _enqueue_step(queue, record.key, job_id, f"step {record.steps} of {record.key}")


def _enqueue_step(queue: Queue, key: str, job_id: str, description: str) -> bool:
    try:
        queue.enqueue_call(
            STEP_JOB,
            args=(key,),
            job_id=job_id,
            unique=True,
            timeout=STEP_TIMEOUT_S,
            result_ttl=24 * 3600,
            failure_ttl=7 * 24 * 3600,
            retry=STEP_RETRY,
            description=description,
        )
    except DuplicateJobError:
        return False
    return True


def subtask_job_id(key: str, wave: int, attempt: int, subtask: str, launch: int) -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"subtask-{digest}-w{wave}-a{attempt}-{subtask}-{launch}"


def schedule_subtask(
    queue: Queue, key: str, wave: int, attempt: int, subtask: str, launch: int
) -> bool:
    """Enqueue one launch of a wave's subtask; False when that launch's job is known."""
    try:
        queue.enqueue_call(
            SUBTASK_JOB,
            args=(key, wave, attempt, subtask),
            job_id=subtask_job_id(key, wave, attempt, subtask, launch),
            unique=True,
            timeout=STEP_TIMEOUT_S,
            result_ttl=24 * 3600,
            failure_ttl=7 * 24 * 3600,
            retry=Retry(max=2, interval=[10, 60]),
            description=f"subtask {subtask} of wave {wave} (attempt {attempt}) of {key}",
        )
    except DuplicateJobError:
        return False
    return True


def subtask_job_alive(
    queue: Queue, key: str, wave: int, attempt: int, subtask: str, launch: int
) -> bool:
    """Whether that launch's job still waits in the queue or runs."""
    job = queue.fetch_job(subtask_job_id(key, wave, attempt, subtask, launch))
    if job is None:
        return False
    return job.get_status(refresh=True) in PENDING


def schedule_join(queue: Queue, key: str, wave: int, attempt: int, launches: int) -> bool:
    """The step that joins a wave once its last subtask ended (asked by that subtask).

    Named by the wave's attempt and how many launches its subtasks had: two subtasks that
    end together ask once; after a resumed wave ran a subtask again, the join is new."""
    job_id = step_job_id(key, 0, f"join-w{wave}-a{attempt}-l{launches}")
    return _enqueue_step(queue, key, job_id, f"join of wave {wave} (attempt {attempt}) of {key}")


RECHECK_MARGIN_S = 2.0


def schedule_recheck(queue: Queue, key: str, lease_left_s: float = LEASE_TTL_S) -> bool:
    """One step of `key` just after the lease it found held would expire unrenewed (its
    holder may be dead); at most one per task and minute. The job runs with
    ``rechecking=True``: finding the lease held again, it leaves the task to that holder."""
    delay = min(max(lease_left_s, 0.0), LEASE_TTL_S) + RECHECK_MARGIN_S
    bucket = int(utcnow().timestamp() // 60)
    try:
        queue.enqueue_in(
            timedelta(seconds=delay),
            STEP_JOB,
            args=(key,),
            kwargs={"rechecking": True},
            job_id=step_job_id(key, 0, f"recheck{bucket}"),
            unique=True,
            job_timeout=STEP_TIMEOUT_S,
            result_ttl=3600,
        )
    except DuplicateJobError:
        return False
    return True


def step_pending(queue: Queue, record: TaskRecord) -> bool:
    """The job of the task's next step is queued, scheduled or running."""
    job = queue.fetch_job(step_job_id(record.key, record.steps))
    return job is not None and job.get_status(refresh=False) in PENDING


def stale_tasks(
    store: TaskStore, queue: Queue | None = None, stale_after: timedelta = STALE_AFTER
) -> list[TaskRecord]:
    """Active tasks that wait for something but nobody has touched for a while: no save
    for `stale_after`, no lease held, and (given the queue) no job for their next step."""
    cutoff = utcnow() - stale_after
    found = []
    for key in store.task_keys():
        record = store.get(key)
        if record is None or record.status is not TaskStatus.ACTIVE:
            continue
        waiting = record.workflow.awaiting is not None and record.workflow.paused is None
        fresh = not record.workflow.started
        if not (waiting or fresh) or record.updated_at >= cutoff or store.is_leased(key):
            continue
        if queue is None or not step_pending(queue, record):
            found.append(record)
    return found


def sweep(
    queue: Queue,
    store: TaskStore,
    stale_after: timedelta = STALE_AFTER,
    every: timedelta = SWEEP_EVERY,
) -> int:
    """Re-enqueue the steps of stale tasks; schedule the next sweep. Returns how many."""
    bucket = int(utcnow().timestamp() // every.total_seconds())
    stale = stale_tasks(store, queue, stale_after)
    count = sum(schedule_step(queue, record, f"sweep{bucket}") for record in stale)
    schedule_sweep(queue, bucket + 1, every)
    if count:
        log.warning("re-enqueued stale tasks", extra={"count": count})
    return count


def schedule_sweep(queue: Queue, bucket: int | None = None, every: timedelta = SWEEP_EVERY) -> None:
    """One sweep job per period, whoever asks (every worker does at start)."""
    period = every.total_seconds()
    bucket = bucket if bucket is not None else int(utcnow().timestamp() // period)
    try:
        queue.enqueue_in(
            every,
            SWEEP_JOB,
            job_id=f"sweep-{int(period)}-{bucket}",
            unique=True,
            result_ttl=600,
        )
    except DuplicateJobError:
        return
