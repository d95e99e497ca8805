"""The task's state a timed-out wait reports (tests/e2e/taskstate.py), against real Redis."""

from __future__ import annotations

import redis
from rq import Queue

from tests.e2e.taskstate import describe
from workers.controller.phases import Role
from workers.controller.state import Awaiting, WorkflowState
from workers.engine.scheduling import schedule_step, step_job_id
from workers.tasks.lease import hold
from workers.tasks.record import TaskRecord
from workers.tasks.store import TaskStore


def test_it_names_the_lease_the_jobs_and_where_they_are(redis_client: redis.Redis) -> None:
    store, queue = TaskStore(redis_client), Queue("t", connection=redis_client)
    waiting = WorkflowState(iteration=1, awaiting=Awaiting(role=Role.JUDGE))
    task = TaskRecord(
        repo="o/r", issue=7, trigger_user="u", trigger_delivery="d", steps=4, workflow=waiting
    )
    store.save(task, lease=None)
    assert "lease: -2 ms left" in describe(redis_client, "t", task.key)  # no lease
    schedule_step(queue, task)
    with hold(redis_client, task.key, ttl_s=30.0, renew_every_s=10.0):
        text = describe(redis_client, "t", task.key)
    job = step_job_id(task.key, 4)
    assert '"steps": 4' in text and '"role": "JUDGE"' in text
    assert f"job {job}: queued, retries left 3" in text
    assert f"queued: ['{job}']" in text and "started: []" in text
    lease = next(line for line in text.splitlines() if line.startswith("lease:"))
    assert 20_000 < int(lease.split()[1]) <= 30_000


def test_a_task_without_a_record_says_so(redis_client: redis.Redis) -> None:
    assert describe(redis_client, "t", "o/r#404").endswith("no record")
