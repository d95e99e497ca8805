"""Redis key names shared by the web side and the workers (the contract between them)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

PREFIX = "agentium"

INTAKE = f"{PREFIX}:intake"  # list of accepted deliveries, newest first
INTAKE_PROCESSING = f"{PREFIX}:intake:processing"  # being turned into RQ jobs
HANDLE_DELIVERIES_JOB = "workers.jobs.handle_deliveries"

DELIVERY_TTL_S = 8 * 24 * 3600  # GitHub may redeliver for days; keep ids >= 7 days


def delivery_seen(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}"


def delivery_body(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}:body"


def delivery_handled(delivery_id: str) -> str:
    return f"{PREFIX}:delivery:{delivery_id}:handled"


def deliveries_job_id(delivery_ids: Sequence[str]) -> str:
    """The same batch always gets the same id; any other batch (even overlapping) another."""
    digest = hashlib.sha256("\n".join(delivery_ids).encode()).hexdigest()[:16]
    return f"deliveries-{delivery_ids[0]}-{digest}"


# Tasks, written by the workers (workers/tasks/store.py, workers/github/marks.py) and read
# as plain JSON by the web side's dashboard and /metrics.
TASK_INDEX = f"{PREFIX}:tasks"  # sorted set of task keys, score = last update (epoch seconds)
RQ_QUEUE_PREFIX = "rq:queue:"  # RQ's list of job ids per queue, oldest first
RQ_JOB_PREFIX = "rq:job:"  # RQ's hash per job (enqueued_at, ...)


def task_record(task_key: str) -> str:
    """The task's JSON record; `task_key` is `owner/repo#N`, lowercased."""
    return f"{PREFIX}:task:{task_key}"


def task_marks(task_key: str) -> str:
    """The hash of what the bot did on GitHub for the task (pr:url, comment:N:name, ...)."""
    return f"{PREFIX}:gh:marks:{task_key}"


def rq_queue(name: str) -> str:
    return f"{RQ_QUEUE_PREFIX}{name}"


def rq_job(job_id: str) -> str:
    return f"{RQ_JOB_PREFIX}{job_id}"
