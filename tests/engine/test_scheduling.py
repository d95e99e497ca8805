"""Step jobs on the real Redis: deterministic ids, re-checks, the sweep of stale tasks."""

from __future__ import annotations

import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
import redis
from rq import Queue, SimpleWorker
from rq.job import JobStatus
from rq.registry import ScheduledJobRegistry

from config import keys
from workers import jobs
from workers.controller.phases import Role
from workers.controller.state import Awaiting, WorkflowState
from workers.engine.scheduling import (
    RECHECK_MARGIN_S,
    STEP_JOB,
    STEP_TIMEOUT_S,
    schedule_recheck,
    schedule_step,
    stale_tasks,
    step_job_id,
    sweep,
)
from workers.tasks.lease import hold
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
    assert schedule_recheck(queue, "o/r#1", 12.0) is True
    assert schedule_recheck(queue, "o/r#1") is False
    registry = ScheduledJobRegistry(queue=queue)
    [job_id] = registry.get_job_ids()
    job = queue.fetch_job(job_id)
    assert job is not None and job.args == ("o/r#1",) and job.func_name == STEP_JOB
    assert job.kwargs == {"rechecking": True}  # RQ's own options are not passed on
    assert job.timeout == STEP_TIMEOUT_S
    when = registry.get_scheduled_time(job_id).timestamp()
    assert 12 < when - time.time() <= 12 + RECHECK_MARGIN_S


def test_the_recheck_job_runs(redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scheduled job itself, run by a real RQ worker: its call of run_step must work."""
    calls: list[tuple[str, bool]] = []

    def advance(rt: object, key: str, *_: object, rechecking: bool = False) -> str:
        calls.append((key, rechecking))
        return "busy"

    monkeypatch.setattr(jobs, "runtime", lambda: SimpleNamespace(queue=None))
    monkeypatch.setattr(jobs, "advance", advance)
    queue = Queue("t", connection=redis_client)
    schedule_recheck(queue, "o/r#1", 0.0)
    registry = ScheduledJobRegistry(queue=queue)
    [job_id] = registry.get_job_ids()
    job = queue.fetch_job(job_id)
    assert job is not None
    queue.enqueue_job(job)  # due now rather than in two seconds
    SimpleWorker([queue], connection=redis_client).work(burst=True)
    job.refresh()
    assert job.get_status() == JobStatus.FINISHED, job.latest_result()
    assert job.return_value() == "busy" and calls == [("o/r#1", True)]


def make_stale(redis_client: redis.Redis, store: TaskStore) -> None:
    old = redis_client.pipeline()
    for key in store.task_keys():
        task = store.get(key)
        assert task is not None
        task.updated_at -= timedelta(minutes=10)
        old.set(keys.task_record(key), task.model_dump_json())
    old.execute()


def test_stale_tasks_are_swept(redis_client: redis.Redis) -> None:
    store, queue = TaskStore(redis_client), Queue("t", connection=redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.WORKER))
    for issue, status in ((1, TaskStatus.ACTIVE), (2, TaskStatus.FINISHED)):
        store.save(record(issue, status=status, workflow=waiting), lease=None)
    assert stale_tasks(store) == []  # fresh
    make_stale(redis_client, store)
    assert [t.issue for t in stale_tasks(store)] == [1]
    with store.leased("o/r#1"):
        assert stale_tasks(store) == []  # someone works on it
    assert sweep(queue, store) == 1
    assert any(job_id.startswith(step_job_id("o/r#1", 0, "sweep")) for job_id in queue.job_ids)
    assert any(j.startswith("sweep-") for j in ScheduledJobRegistry(queue=queue).get_job_ids())


def test_a_lease_held_past_the_threshold_is_in_flight(redis_client: redis.Redis) -> None:
    """However long the holder's call takes: the sweep counts the task in flight while the
    lease is renewed (here a TTL of 1 s renewed every 0.2 s, held for 3 s)."""
    store = TaskStore(redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.WORKER))
    store.save(record(1, workflow=waiting), lease=None)
    make_stale(redis_client, store)
    with hold(redis_client, "o/r#1", ttl_s=1.0, renew_every_s=0.2):
        for _ in range(6):
            time.sleep(0.5)
            assert stale_tasks(store, stale_after=timedelta(seconds=0.1)) == []
    assert [t.issue for t in stale_tasks(store, stale_after=timedelta(seconds=0.1))] == [1]


def test_a_task_whose_next_step_is_queued_is_not_stale(redis_client: redis.Redis) -> None:
    store, queue = TaskStore(redis_client), Queue("t", connection=redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.WORKER))
    task = record(1, workflow=waiting, steps=4)
    store.save(task, lease=None)
    make_stale(redis_client, store)
    schedule_step(queue, task)  # waiting for a free worker
    assert stale_tasks(store, queue) == []
    assert [t.issue for t in stale_tasks(store)] == [1]


def test_the_sweep_period_and_threshold_are_settings(redis_client: redis.Redis) -> None:
    store, queue = TaskStore(redis_client), Queue("t", connection=redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.WORKER))
    store.save(record(1, workflow=waiting), lease=None)
    assert sweep(queue, store, stale_after=timedelta(minutes=3)) == 0
    time.sleep(1.1)
    every = timedelta(seconds=5)
    assert sweep(queue, store, stale_after=timedelta(seconds=1), every=every) == 1
    scheduled = ScheduledJobRegistry(queue=queue)
    assert any(j.startswith("sweep-5-") for j in scheduled.get_job_ids())
