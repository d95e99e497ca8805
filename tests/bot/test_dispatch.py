"""Intake entries become RQ jobs and nothing is lost when a dispatcher dies midway."""

from __future__ import annotations

import redis
from rq import Queue, SimpleWorker

from bot.dispatch import BATCH, Dispatcher
from bot.intake import Envelope
from config import keys
from tests.support import encode, payload
from workers.tasks.record import task_key
from workers.tasks.store import TaskStore


def store(r: redis.Redis, delivery: str, issue: int = 1, label: str = "agentium") -> None:
    """What the receiver's script writes for an accepted delivery."""
    data = payload("issues", "labeled")
    data["label"]["name"] = label
    data["issue"]["number"] = issue
    envelope = Envelope(delivery, "issues", "labeled", 0.0, encode(data))
    r.set(keys.delivery_body(delivery), envelope.body)
    r.lpush(keys.INTAKE, envelope.entry())


def batch_deliveries(queue: Queue) -> list[list[str]]:
    jobs = [queue.fetch_job(job_id) for job_id in queue.job_ids]
    return [[meta["delivery"] for meta in job.args[0]] for job in jobs if job]


def test_entries_become_one_job_per_batch(redis_client: redis.Redis) -> None:
    for i in range(3):
        store(redis_client, f"d{i}", issue=i + 1)
    queue = Queue("agentium-test", connection=redis_client)
    assert Dispatcher(redis_client, queue).run_once(block_s=1) == 3
    [job_id] = queue.job_ids
    assert job_id == keys.deliveries_job_id(["d0", "d1", "d2"])
    assert batch_deliveries(queue) == [["d0", "d1", "d2"]]  # oldest first
    job = queue.fetch_job(job_id)
    assert job is not None and job.func_name == keys.HANDLE_DELIVERIES_JOB
    assert redis_client.llen(keys.INTAKE) == 0
    assert redis_client.llen(keys.INTAKE_PROCESSING) == 0


def test_a_batch_is_capped(redis_client: redis.Redis) -> None:
    for i in range(BATCH + 5):
        store(redis_client, f"d{i}")
    queue = Queue("agentium-test", connection=redis_client)
    dispatcher = Dispatcher(redis_client, queue)
    assert dispatcher.run_once(block_s=1) == BATCH
    assert dispatcher.run_once(block_s=1) == 5
    assert [len(b) for b in batch_deliveries(queue)] == [BATCH, 5]


def test_orphans_of_a_dead_dispatcher_are_restored(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    store(redis_client, "d1")
    taken = Dispatcher(redis_client, queue).take(block_s=1)  # then "dies" before enqueueing
    assert len(taken) == 1
    assert redis_client.llen(keys.INTAKE_PROCESSING) == 1
    fresh = Dispatcher(redis_client, queue)
    assert fresh.restore_orphans() == 1
    assert fresh.run_once(block_s=1) == 1
    assert batch_deliveries(queue) == [["d1"]]


def test_empty_intake_returns_after_the_wait(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    assert Dispatcher(redis_client, queue).run_once(block_s=1) == 0


def test_jobs_run_by_a_real_worker_apply_each_delivery_once(redis_client: redis.Redis) -> None:
    queue = Queue("agentium-test", connection=redis_client)
    dispatcher = Dispatcher(redis_client, queue)
    store(redis_client, "d1", issue=5)
    store(redis_client, "d2", issue=6)
    store(redis_client, "d3", issue=7, label="bug")
    dispatcher.run_once(block_s=1)
    redis_client.lpush(keys.INTAKE, Envelope("d1", "issues", "labeled", 0.0, b"").entry())
    dispatcher.run_once(block_s=1)  # d1 again, e.g. restored after a crash
    assert len(set(queue.job_ids)) == 2
    SimpleWorker([queue], connection=redis_client).work(burst=True)
    first = queue.fetch_job(keys.deliveries_job_id(["d1", "d2", "d3"]))
    again = queue.fetch_job(keys.deliveries_job_id(["d1"]))
    assert first is not None and again is not None
    assert first.return_value() == [
        "task_started",
        "task_started",
        "ignored: issues.labeled does not concern the bot",
    ]
    assert again.return_value() == ["already_handled"]
    repo = "Codertocat/Hello-World"
    assert TaskStore(redis_client).get(task_key(repo, 5)) is not None
    assert TaskStore(redis_client).get(task_key(repo, 6)) is not None
    assert TaskStore(redis_client).get(task_key(repo, 7)) is None
    assert redis_client.get(keys.delivery_body("d1")) is None  # dropped once handled
