"""What Redis holds about one task, for the message of a wait that timed out.

The processes' logs say what they did; this says where the task stands: its record, its
lease, and every RQ job of its steps with the registries that hold them, so a task that
stalls (nothing queued, a lease nobody renews, a job left started) can be told apart
from one that is merely slow.
"""

from __future__ import annotations

import json

import redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job
from rq.results import Result

from config import keys
from workers.engine.scheduling import step_job_id
from workers.tasks.store import TaskStore

MAX_JOBS = 50


def describe(client: redis.Redis, queue_name: str, key: str) -> str:
    lines = [f"--- task {key} in Redis"]
    record = TaskStore(client).get(key)
    if record is None:
        return "\n".join([*lines, "no record"])
    workflow = record.workflow
    summary = {
        "status": record.status.value,
        "steps": record.steps,
        "phase": workflow.phase.value,
        "awaiting": workflow.awaiting.model_dump(mode="json") if workflow.awaiting else None,
        "paused": workflow.paused is not None,
        "updated_at": record.updated_at.isoformat(),
    }
    lines.append(f"record: {json.dumps(summary)}")
    lines.append(f"lease: {client.pttl(keys.task_lease(key))} ms left")
    queue = Queue(queue_name, connection=client)
    lines += [_job(client, job_id) for job_id in _step_jobs(client, key)]
    registries = {
        "queued": queue.get_job_ids(),
        "started": queue.started_job_registry.get_job_ids(),
        "scheduled": queue.scheduled_job_registry.get_job_ids(),
        "intermediate": queue.intermediate_queue.get_job_ids(),
    }
    prefix = _job_prefix(key)
    for name, ids in registries.items():
        lines.append(f"{name}: {[i for i in ids if i.startswith(prefix)]}")
    return "\n".join(lines)


def _job_prefix(key: str) -> str:
    """What the ids of all the task's step jobs start with (``step-<digest>``)."""
    return step_job_id(key, 0).rsplit("-", 1)[0]


def _step_jobs(client: redis.Redis, key: str) -> list[str]:
    pattern = f"rq:job:{_job_prefix(key)}*"
    found = sorted(k.decode() for k in client.scan_iter(pattern, count=1000))
    return [k.removeprefix("rq:job:") for k in found if k.count(":") == 2][:MAX_JOBS]


def _job(client: redis.Redis, job_id: str) -> str:
    try:
        job = Job.fetch(job_id, connection=client)
    except NoSuchJobError:
        return f"job {job_id}: gone"
    status = job.get_status(refresh=False)
    line = (
        f"job {job_id}: {status.value if status else None}, retries left {job.retries_left}, "
        f"enqueued {job.enqueued_at}, started {job.started_at}, ended {job.ended_at}"
    )
    result = job.latest_result()
    if result is None:
        return line
    if result.type == Result.Type.FAILED:
        return f"{line}, failed: {last_error(job)[:200]}"
    return f"{line}, {result.type.name.lower()}: {result.return_value!r:.80}"


def last_error(job: Job) -> str:
    """The last line of the job's latest failure ('?' when it has none)."""
    result = job.latest_result()
    lines = (result.exc_string or "").strip().splitlines() if result else []
    return lines[-1] if lines else "?"
