"""Instances in parallel on RQ workers, each in its own folder and checkout.

Like ``make run``: the embedded Redis when ``REDIS_URL`` is unset, and real ``agentium
worker`` processes (started by the same supervisor, ``--burst --no-github``: they leave
when the queue is empty and need no GitHub App). The run has a queue of its own, so a bot
sharing the Redis never sees its jobs; the workers' logs go to the run's ``workers.log``.
Every wait is bounded: an instance's job by ``timeout_s``; the whole run ends once every
job has ended or every worker has left.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis
from rq import Queue
from rq.job import Job, JobStatus

from config.settings import Settings
from workers.eval.instance import Instance
from workers.eval.jobs import InstanceJob, run_instance_job
from workers.eval.record import InstanceRecord
from workers.processes.supervisor import Supervisor

POLL_S = 0.5
LEAVE_S = 30.0
RESULT_TTL_S = 7 * 24 * 3600
ENDED = {JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


@dataclass(frozen=True)
class PoolRequest:
    instances: Sequence[Instance]
    folder: Path  # the run's folder: one sub-folder per instance
    workers: int
    timeout_s: float
    routing: dict[str, Any] | None = None
    harness: str | None = None


@dataclass
class Progress:
    """What the caller shows while the run goes: finished records, and how many run."""

    finished: list[InstanceRecord] = field(default_factory=list)
    running: int = 0


def _record_of(job: Job, instance: Instance, folder: Path) -> InstanceRecord:
    if job.get_status() is JobStatus.FINISHED:
        return InstanceRecord.model_validate(job.return_value())
    why = (job.exc_info or "").strip().splitlines()[-1:] or [str(job.get_status())]
    return InstanceRecord(
        instance_id=instance.instance_id,
        repo=instance.repo,
        folder=str(folder),
        error=f"the worker's job ended {job.get_status()}: {why[0][:500]}",
    )


def _lost(instance: Instance, folder: Path) -> InstanceRecord:
    return InstanceRecord(
        instance_id=instance.instance_id,
        repo=instance.repo,
        folder=str(folder),
        error="every worker left before this instance's job ended",
    )


def run_pool(
    settings: Settings, request: PoolRequest, on_change: Callable[[Progress], None]
) -> list[InstanceRecord]:
    """Every instance's record, in the suite's order."""
    supervisor = Supervisor(settings)
    env = supervisor.start_redis()
    env["QUEUE_NAME"] = f"agentium-eval-{request.folder.name}"
    try:
        connection = Redis.from_url(env["REDIS_URL"])
        queue = Queue(env["QUEUE_NAME"], connection=connection)
        numbered = enumerate(request.instances, start=1)
        jobs = [_enqueue(queue, request, number, instance) for number, instance in numbered]
        log = request.folder / "workers.log"
        supervisor.start_workers(env, request.workers, "--burst", "--no-github", log=log)
        records = _wait(supervisor, request, jobs, on_change)
        _let_workers_leave(supervisor)
        return records
    finally:
        supervisor.stop()


def _let_workers_leave(supervisor: Supervisor) -> None:
    """Burst workers leave once the queue is empty: a few seconds for them to do so
    before the supervisor stops whatever is left."""
    deadline = time.monotonic() + LEAVE_S
    while time.monotonic() < deadline and any(c.poll() is None for c in supervisor.children):
        time.sleep(POLL_S)


def _enqueue(queue: Queue, request: PoolRequest, number: int, instance: Instance) -> Job:
    payload = InstanceJob(
        instance=instance.model_dump(mode="json", by_alias=True),
        number=number,
        folder=str(request.folder / instance.instance_id),
        routing=request.routing,
        **({"harness": request.harness} if request.harness else {}),
    )
    return queue.enqueue(
        run_instance_job,
        payload.model_dump(mode="json"),
        job_timeout=int(request.timeout_s),
        result_ttl=RESULT_TTL_S,
        failure_ttl=RESULT_TTL_S,
        description=f"agentium eval {instance.instance_id}",
    )


def _wait(
    supervisor: Supervisor,
    request: PoolRequest,
    jobs: list[Job],
    on_change: Callable[[Progress], None],
) -> list[InstanceRecord]:
    records: dict[int, InstanceRecord] = {}
    progress = Progress()
    while len(records) < len(jobs):
        # Read before the statuses: a job that ended before its worker left shows as ended.
        workers_gone = all(child.poll() is not None for child in supervisor.children)
        statuses = [job.get_status(refresh=True) for job in jobs]
        for index, status in enumerate(statuses):
            instance = request.instances[index]
            folder = request.folder / instance.instance_id
            if index in records:
                continue
            if status in ENDED:
                records[index] = _record_of(jobs[index], instance, folder)
            elif workers_gone:
                records[index] = _lost(instance, folder)
            else:
                continue
            progress.finished.append(records[index])
        progress.running = sum(status is JobStatus.STARTED for status in statuses)
        on_change(progress)
        if len(records) < len(jobs):
            time.sleep(POLL_S)
    return [records[index] for index in range(len(jobs))]
