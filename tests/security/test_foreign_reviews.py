"""Reviews that are not on the bot's PR reach no task: a fork's PR, another repository's PR.

A review on another PR of the same repository: tests/intake/test_deliveries.py
(test_review_on_another_pr_does_nothing); a reviewer without write permission is refused
before the review is accepted (workers/engine/driver.py, workers/github/permissions.py).
"""

from __future__ import annotations

import json
from typing import Any

import redis
from rq import Queue

from config.wire import DeliveryMeta
from tests.support import payload
from workers.intake.deliveries import process_delivery
from workers.intake.intents import Rules
from workers.jobs import scheduler
from workers.tasks.record import task_key
from workers.tasks.store import TaskStore

RULES = Rules("agentium", "agentium-test[bot]", frozenset({"stop", "retry", "status"}))


def run(r: redis.Redis, event: str, data: dict[str, Any], delivery: str) -> str:
    meta = DeliveryMeta(delivery=delivery, event=event, action=data.get("action"))
    return process_delivery(r, RULES, meta, json.dumps(data), scheduler(Queue("t", connection=r)))


def bots_task(r: redis.Redis) -> tuple[str, int]:
    """A running task whose PR is #500 on the corpus repository."""
    labeled = payload("issues", "labeled")
    labeled["label"]["name"] = "agentium"
    assert run(r, "issues", labeled, "start") == "task_started"
    key = task_key(labeled["repository"]["full_name"], labeled["issue"]["number"])
    store = TaskStore(r)
    record = store.get(key)
    assert record is not None
    record.pr_number = 500
    store.save(record)
    return key, 500


def test_a_review_on_a_fork_pr_is_ignored(redis_client: redis.Redis) -> None:
    key, bots_pr = bots_task(redis_client)
    review = payload("pull_request_review", "submitted")
    review["pull_request"]["number"] = bots_pr + 1
    review["pull_request"]["head"]["repo"] = {"full_name": "stranger/fork", "fork": True}
    assert run(redis_client, "pull_request_review", review, "fork") == "no_task"
    assert TaskStore(redis_client).inbox(key) == []


def test_the_same_pr_number_in_another_repository_is_ignored(redis_client: redis.Redis) -> None:
    key, bots_pr = bots_task(redis_client)
    review = payload("pull_request_review", "submitted")
    review["pull_request"]["number"] = bots_pr
    review["repository"]["full_name"] = "stranger/elsewhere"
    assert run(redis_client, "pull_request_review", review, "elsewhere") == "no_task"
    assert TaskStore(redis_client).inbox(key) == []
