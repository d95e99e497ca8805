"""Intake entries become RQ jobs and nothing is lost when a dispatcher dies midway."""

from __future__ import annotations

import redis
from rq import Queue, SimpleWorker

from bot.dispatch import Dispatcher
from bot.intake import Envelope
from config import keys
from tests.support import encode, payload
from workers.tasks.record import task_key
from workers.tasks.store import TaskStore


def entry(delivery: str, label: str = "agentium") -> bytes:
    data = payload("issues", "labeled")
    data["label"]["name"] = label
    data["issue"]["number"] = abs(hash(delivery)) % 1000 + 1
    return Envelope(delivery, "issues", "labeled", 0.0, encode(data)).encode()


def test_entries_become_jobs_and_leave_processing(redis_client: redis.Redis) -> None:
    for i in range(3):
        redis_client.lpush(keys.INTAKE, entry(f"d{i}"))
    queue = Queue("agentium-test", connection=redis_client)
    assert Dispatcher(redis_client, queue).run_once(block_s=1) == 3
    assert sorted(queue.job_ids) == ["delivery-d0", "delivery-d1", "delivery-d2"]
    job = queue.fetch_job("delivery-d0")
    assert job is not None and job.func_name == keys.HANDLE_DELIVERY_JOB
    assert redis_client.llen(keys.INTAKE) == 0
    assert redis_client.llen(keys.INTAKE_PROCESSING) == 0


def test_oldest_entry_is_dispatched_first(redis_client: redis.Redis) -> None:
    redis_client.lpush(keys.INTAKE, entry("first"))
    redis_client.lpush(keys.INTAKE, entry("second"))
    queue = Queue("agentium-test", connection=redis_client)
    Dispatcher(redis_client, queue).run_once(block_s=1)
    assert queue.job_ids == ["delivery-first", "delivery-second"]


def test_orphans_of_a_dead_dispatcher_are_restored(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    redis_client.lpush(keys.INTAKE, entry("d1"))
    taken = Dispatcher(redis_client, queue).take(block_s=1)  # then "dies" before enqueueing
    assert len(taken) == 1
    assert redis_client.llen(keys.INTAKE_PROCESSING) == 1
    fresh = Dispatcher(redis_client, queue)
    assert fresh.restore_orphans() == 1
    assert fresh.run_once(block_s=1) == 1
    assert queue.job_ids == ["delivery-d1"]


def test_empty_intake_returns_after_the_wait(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    assert Dispatcher(redis_client, queue).run_once(block_s=1) == 0


def test_a_job_run_twice_applies_once(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    dispatcher = Dispatcher(redis_client, queue)
    redis_client.lpush(keys.INTAKE, entry("d1"))
    dispatcher.run_once(block_s=1)
    redis_client.lpush(keys.INTAKE, entry("d1"))  # e.g. restored after a crash
    dispatcher.run_once(block_s=1)
    SimpleWorker([queue], connection=redis_client).work(burst=True)
    results = sorted(str(job.return_value()) for job in [queue.fetch_job("delivery-d1")] if job)
    assert results == ["already_handled"]
    number = abs(hash("d1")) % 1000 + 1
    assert TaskStore(redis_client).get(task_key("Codertocat/Hello-World", number)) is not None
