"""Step jobs: deterministic ids so a re-enqueue is harmless, and a sweep for lost ones."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

from workers.tasks.record import TaskRecord, TaskStatus, utcnow
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.scheduling")

STEP_JOB = "workers.jobs.run_step"
SUBTASK_JOB = "workers.jobs.run_subtask"
SWEEP_JOB = "workers.jobs.sweep"
STEP_TIMEOUT_S = 3 * 3600  # longer than any one agent run (config/agents.yml run_limits)
STALE_AFTER = timedelta(minutes=3)  # no progress and no lock for this long: re-enqueue
SWEEP_EVERY = timedelta(minutes=1)


def step_job_id(key: str, step: int, cause: str = "") -> str:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"step-{digest}-{step}" + (f"-{cause}" if cause else "")


def schedule_step(queue: Queue, record: TaskRecord, cause: str = "") -> bool:
    """Enqueue the task's next step; False when that very job is already known.

    The chain of steps uses the step counter alone; an event (a command, a review, the
    sweep) adds its cause, so it is never mistaken for a step that already ran. Two jobs
    for one task are harmless: the lock serialises them and each reads the stored state.
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
            retry=Retry(max=3, interval=[10, 60, 300]),
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


LIVE_JOB_STATES = frozenset({"queued", "started", "deferred", "scheduled"})


def subtask_job_alive(
    queue: Queue, key: str, wave: int, attempt: int, subtask: str, launch: int
) -> bool:
    """Whether that launch's job still waits in the queue or runs."""
    job = queue.fetch_job(subtask_job_id(key, wave, attempt, subtask, launch))
    if job is None:
        return False
    status = job.get_status(refresh=True)
    return status is not None and str(getattr(status, "value", status)) in LIVE_JOB_STATES


def schedule_join(queue: Queue, key: str, wave: int, attempt: int, launches: int) -> bool:
    """The step that joins a wave once its last subtask ended (asked by that subtask).

    Named by the wave's attempt and how many launches its subtasks had: two subtasks that
    end together ask once; after a resumed wave ran a subtask again, the join is new."""
    job_id = step_job_id(key, 0, f"join-w{wave}-a{attempt}-l{launches}")
    return _enqueue_step(queue, key, job_id, f"join of wave {wave} (attempt {attempt}) of {key}")


RECHECK_AFTER = timedelta(seconds=40)  # past the lock's TTL


def schedule_recheck(queue: Queue, key: str) -> bool:
    """A step of `key` a little later: the lock it found held may belong to a dead worker."""
    bucket = int(utcnow().timestamp() // 60)
    try:
        queue.enqueue_in(
            RECHECK_AFTER,
            STEP_JOB,
            key,
            job_id=step_job_id(key, 0, f"recheck{bucket}"),
            unique=True,
            timeout=STEP_TIMEOUT_S,
            result_ttl=3600,
        )
    except DuplicateJobError:
        return False
    return True


def stale_tasks(store: TaskStore) -> list[TaskRecord]:
    """Active tasks that wait for something but nobody has touched for a while."""
    cutoff = utcnow() - STALE_AFTER
    found = []
    for key in store.task_keys():
        record = store.get(key)
        if record is None or record.status is not TaskStatus.ACTIVE:
            continue
        waiting = record.workflow.awaiting is not None and record.workflow.paused is None
        fresh = not record.workflow.started
        if (waiting or fresh) and record.updated_at < cutoff and not store.is_locked(key):
            found.append(record)
    return found


def sweep(queue: Queue, store: TaskStore) -> int:
    """Re-enqueue the steps of stale tasks; schedule the next sweep. Returns how many."""
    bucket = int(utcnow().timestamp() // SWEEP_EVERY.total_seconds())
    count = sum(schedule_step(queue, record, f"sweep{bucket}") for record in stale_tasks(store))
    schedule_sweep(queue, bucket + 1)
    if count:
        log.warning("re-enqueued stale tasks", extra={"count": count})
    return count


def schedule_sweep(queue: Queue, bucket: int | None = None) -> None:
    """One sweep job per minute, whoever asks (every worker does at start)."""
    bucket = bucket if bucket is not None else int(utcnow().timestamp() // 60)
    try:
        queue.enqueue_in(
            SWEEP_EVERY,
            SWEEP_JOB,
            job_id=f"sweep-{bucket}",
            unique=True,
            result_ttl=600,
        )
    except DuplicateJobError:
        return
