"""The web side's read model against the real Redis, on records the workers' code wrote."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

import pytest
import redis
from redis.asyncio import Redis as AsyncRedis
from rq import Queue

from bot.dashboard.model import TaskView, describe_age, parse_task
from bot.dashboard.reader import TaskReader
from config import keys
from tests.dashboard.stored import HOSTILE_TITLE, finished, record, store, store_examples
from workers.github.marks import TaskMarks
from workers.tasks import store as task_store
from workers.tasks.record import TaskRecord


@pytest.fixture
async def reader(redis_url: str, redis_client: redis.Redis) -> AsyncIterator[TaskReader]:
    client = AsyncRedis.from_url(redis_url)
    yield TaskReader(client)
    await client.aclose()


def test_key_names_are_the_ones_the_workers_write(redis_client: redis.Redis) -> None:
    record = TaskRecord(
        repo="A/B", issue=1, installation_id=1, trigger_user="u", trigger_delivery="d"
    )
    task_store.TaskStore(redis_client).save(record)
    TaskMarks(redis_client, record.key).set("pr:url", "https://example.test/pr/1")
    assert redis_client.zscore(keys.TASK_INDEX, record.key) is not None
    assert redis_client.get(keys.task_record(record.key)) is not None
    assert redis_client.hget(keys.task_marks(record.key), "pr:url") is not None


async def test_tasks_read_back_newest_first(redis_client: redis.Redis, reader: TaskReader) -> None:
    store_examples(redis_client)
    assert await reader.count() == 3
    tasks = await reader.tasks(0, 50)
    assert [t.key for t in tasks] == [
        "octo-org/gadgets#7",
        "octo-org/widgets#31",
        "octo-org/widgets#22",
    ]
    active = tasks[0]
    assert (active.repo, active.issue, active.issue_title) == ("Octo-Org/Gadgets", 7, HOSTILE_TITLE)
    assert (active.status, active.workflow.phase, active.workflow.path) == (
        "active",
        "IMPLEMENT",
        "COMPLEX",
    )
    assert (active.workflow.iteration, active.iteration_limit, active.last_verdict) == (
        2,
        5,
        "ITERATE",
    )
    assert active.pr_number == 9 and active.trigger_user == "octocat"
    assert active.workflow.spend.by_model["claude-sonnet"].input_tokens == 12_000
    assert [t.key for t in await reader.tasks(1, 1)] == ["octo-org/widgets#31"]


async def test_a_task_keeps_its_whole_history(
    redis_client: redis.Redis, reader: TaskReader
) -> None:
    state = finished("issue-22-simple")
    store(redis_client, record("octo-org/widgets", 22, state))
    task = await reader.get("octo-org/widgets#22")
    assert task is not None
    assert len(task.workflow.history) == len(state.history)
    for seen, written in zip(task.workflow.history, state.history, strict=True):
        assert (seen.phase, seen.iteration, seen.of, seen.role) == (
            written.phase.value, written.iteration, written.of, written.role.value,
        )  # fmt: skip
        assert (seen.verdict, seen.summary, seen.at) == (
            written.verdict,
            written.summary,
            written.at,
        )
    assert task.nomerge and task.workflow.overrides[0].rule == "max_iterations"


async def test_marks_give_pr_nomerge_and_comment_links(
    redis_client: redis.Redis, reader: TaskReader
) -> None:
    store_examples(redis_client)
    marks = await reader.marks("octo-org/widgets#22")
    assert marks.pr_url == "https://github.com/octo-org/widgets/pull/150"
    assert marks.nomerge_url and marks.nomerge_url.endswith("#issuecomment-901")
    assert marks.head_sha and marks.head_sha.startswith("0123")
    # a comment still "pending" (posted, id not yet saved) has no link yet
    assert marks.comments == [
        ("status", "https://github.com/octo-org/widgets/issues/22#issuecomment-801")
    ]
    assert (await reader.marks("nobody/none#1")).comments == []


def test_old_new_and_broken_records_are_tolerated() -> None:
    minimal = parse_task(b'{"repo": "a/b", "issue": 3}')
    assert minimal is not None and minimal.workflow.phase == "PLAN" and minimal.last_verdict is None
    newer = {
        "repo": "a/b", "issue": 4, "status": "archived", "future": {"x": 1},
        "workflow": {"phase": "REVIEW", "path": "MEDIUM", "history": [{"role": "ROBOT"}], "new": 1},
    }  # fmt: skip
    task = parse_task(json.dumps(newer))
    assert task is not None and (task.status, task.workflow.phase) == ("archived", "REVIEW")
    assert task.workflow.history[0].role == "ROBOT"
    assert parse_task(b"not json") is None
    assert parse_task(b'{"issue": 1}') is None


async def test_unreadable_and_missing_records_are_skipped(
    redis_client: redis.Redis, reader: TaskReader
) -> None:
    store(redis_client, record("a/b", 1, finished("nothing-to-do")))
    redis_client.zadd(keys.TASK_INDEX, {"a/b#2": time.time() + 1, "a/b#3": time.time() + 2})
    redis_client.set(keys.task_record("a/b#3"), b"{broken")
    assert [t.key for t in await reader.tasks(0, 50)] == ["a/b#1"]
    raws, indexed = await reader.newest_raw(10)
    assert indexed == 3 and len(raws) == 2


async def test_newest_raw_is_bounded(redis_client: redis.Redis, reader: TaskReader) -> None:
    state = finished("nothing-to-do")
    store(redis_client, *(record("a/b", n, state) for n in range(1, 451)))
    raws, indexed = await reader.newest_raw(420)
    assert indexed == 450 and len(raws) == 420
    assert TaskView.model_validate_json(raws[0]).issue == 450


async def test_queue_figures(redis_client: redis.Redis, reader: TaskReader) -> None:
    empty = await reader.rq_queue("agentium")
    assert (empty.depth, empty.oldest_age_s) == (0, None)
    for age in (30, 10):  # LPUSH: newest first, the dispatcher takes from the right
        entry = {"delivery": f"d{age}", "event": "issues", "received_at": time.time() - age}
        redis_client.lpush(keys.INTAKE, json.dumps(entry))
    intake = await reader.intake(keys.INTAKE)
    assert intake.depth == 2 and intake.oldest_age_s is not None and 29 <= intake.oldest_age_s < 60
    queue = Queue("agentium", connection=redis_client)
    queue.enqueue("workers.jobs.handle_deliveries", ["d1"])
    queue.enqueue("workers.jobs.handle_deliveries", ["d2"])
    rq = await reader.rq_queue("agentium")
    assert rq.depth == 2 and rq.oldest_age_s is not None and 0 <= rq.oldest_age_s < 30


def test_ages_read_like_a_person_would() -> None:
    assert [describe_age(s) for s in (None, 5, 90, 7200, 200000)] == ["—", "5s", "1m", "2h", "2d"]
