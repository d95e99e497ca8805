"""Step jobs on the real Redis: deterministic ids, re-checks, the sweep of stale tasks."""

from __future__ import annotations

from datetime import timedelta

import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry

from workers.controller.phases import Role
from workers.controller.state import Awaiting, WorkflowState
from workers.engine.scheduling import (
    STEP_JOB,
    schedule_recheck,
    schedule_step,
    stale_tasks,
    step_job_id,
    sweep,
)
from workers.tasks.record import TaskRecord, TaskStatus
from workers.tasks.store import TaskStore


def record(issue: int = 1, **changes: object) -> TaskRecord:
    base = TaskRecord(repo="o/r", issue=issue, trigger_user="u", trigger_delivery="d")
    return base.model_copy(update=changes)


def test_a_step_is_enqueued_once(redis_client: redis.Redis) -> None:
    queue = Queue("t", connection=redis_client)
    task = record()
    assert schedule_step(queue, task) is True
    assert schedule_step(queue, task) is False
    assert schedule_step(queue, task, "dx") is True  # an event's step is its own job
    job = queue.fetch_job(step_job_id(task.key, 0))
    assert job is not None and job.func_name == STEP_JOB and job.args == (task.key,)
    assert len(queue.job_ids) == 2


def test_the_next_step_has_a_new_id(redis_client: redis.Redis) -> None:
    queue = Queue("t", connection=redis_client)
    schedule_step(queue, record())
    assert schedule_step(queue, record(steps=1)) is True


def test_a_recheck_is_scheduled_later_at_most_once(redis_client: redis.Redis) -> None:
    queue = Queue("t", connection=redis_client)
    assert schedule_recheck(queue, "o/r#1") is True
    assert schedule_recheck(queue, "o/r#1") is False
    [job_id] = ScheduledJobRegistry(queue=queue).get_job_ids()
    job = queue.fetch_job(job_id)
    assert job is not None and job.args == ("o/r#1",) and job.func_name == STEP_JOB


def test_stale_tasks_are_swept(redis_client: redis.Redis) -> None:
    store, queue = TaskStore(redis_client), Queue("t", connection=redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.WORKER))
    for issue, status in ((1, TaskStatus.ACTIVE), (2, TaskStatus.FINISHED)):
        store.save(record(issue, status=status, workflow=waiting))
    assert stale_tasks(store) == []  # fresh
    old = redis_client.pipeline()
    for key in store.task_keys():
        task = store.get(key)
        assert task is not None
        task.updated_at -= timedelta(minutes=10)
        old.set(f"agentium:task:{key}", task.model_dump_json())
    old.execute()
    assert [t.issue for t in stale_tasks(store)] == [1]
    with store.locked("o/r#1"):
        assert stale_tasks(store) == []  # someone works on it
    assert sweep(queue, store) == 1
    assert any(job_id.startswith(step_job_id("o/r#1", 0, "sweep")) for job_id in queue.job_ids)
    assert any(j.startswith("sweep-") for j in ScheduledJobRegistry(queue=queue).get_job_ids())
