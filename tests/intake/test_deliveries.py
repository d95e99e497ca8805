"""The worker's side of a delivery, on the real Redis: decide once, apply under the lease."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import redis
from rq import Queue

from config.wire import DeliveryMeta
from tests.support import payload
from workers.controller.ladder import QUESTION_REASON
from workers.controller.phases import Phase, Role
from workers.controller.state import Awaiting, Pause
from workers.engine.scheduling import step_job_id
from workers.intake import deliveries
from workers.intake.apply import CANCEL_WAIT_S
from workers.intake.deliveries import process_delivery
from workers.intake.intents import Rules
from workers.jobs import scheduler
from workers.tasks.inbox import CancelRequest, CommandRequest, IssueReply
from workers.tasks.lease import hold
from workers.tasks.record import TaskStatus, task_key
from workers.tasks.store import TaskStore

RULES = Rules("agentium", "agentium-test[bot]", frozenset({"stop", "retry", "status"}))
REPO = "Codertocat/Hello-World"
KEY = task_key(REPO, 1)


def queue(r: redis.Redis) -> Queue:
    return Queue("agentium-test", connection=r)


def run(r: redis.Redis, event: str, data: dict[str, Any], delivery: str) -> str:
    meta = DeliveryMeta(delivery=delivery, event=event, action=data.get("action"))
    return process_delivery(r, RULES, meta, json.dumps(data), scheduler(queue(r)))


def labeled(label: str = "agentium", installation: int | None = 42) -> dict[str, Any]:
    data = payload("issues", "labeled")
    data["label"]["name"] = label
    if installation is not None:
        data["installation"] = {"id": installation, "node_id": "x"}
    return data


def test_trigger_label_starts_a_task(redis_client: redis.Redis) -> None:
    assert run(redis_client, "issues", labeled(), "d1") == "task_started"
    record = TaskStore(redis_client).get(KEY)
    assert record is not None
    assert (record.repo, record.issue, record.installation_id) == (REPO, 1, 42)
    assert (record.trigger_user, record.trigger_delivery) == ("Codertocat", "d1")
    assert record.status is TaskStatus.ACTIVE
    assert (record.issue_title, record.issue_body) == (
        "Spelling error in the README file",
        "It looks like you accidently spelled 'commit' with two 't's.",
    )
    assert TaskStore(redis_client).task_keys() == [KEY]
    assert queue(redis_client).job_ids == [step_job_id(KEY, 0)]  # its first step


def test_other_labels_do_nothing(redis_client: redis.Redis) -> None:
    assert run(redis_client, "issues", labeled("bug"), "d1").startswith("ignored")
    assert TaskStore(redis_client).get(KEY) is None


def test_same_delivery_twice_is_handled_once(redis_client: redis.Redis) -> None:
    assert run(redis_client, "issues", labeled(), "d1") == "task_started"
    assert run(redis_client, "issues", labeled(), "d1") == "already_handled"


def test_second_trigger_while_running_keeps_the_task(redis_client: redis.Redis) -> None:
    run(redis_client, "issues", labeled(), "d1")
    assert run(redis_client, "issues", labeled(), "d2") == "already_running"
    record = TaskStore(redis_client).get(KEY)
    assert record is not None and record.trigger_delivery == "d1"


def test_assigning_the_bot_starts_a_task(redis_client: redis.Redis) -> None:
    data = payload("issues", "assigned")
    data["assignee"] = {**data["assignee"], "login": "agentium-test[bot]", "type": "Bot"}
    assert run(redis_client, "issues", data, "d1") == "task_started"


def test_assigning_a_person_does_nothing(redis_client: redis.Redis) -> None:
    assert run(redis_client, "issues", payload("issues", "assigned"), "d1").startswith("ignored")


@pytest.mark.parametrize(
    ("event", "name", "change", "reason"),
    [
        ("issues", "unlabeled", {"label": {"name": "agentium"}}, "label 'agentium' removed"),
        ("issues", "labeled", {"action": "closed"}, "issue closed"),
        (
            "issues",
            "assigned",
            {"action": "unassigned", "assignee": {"login": "agentium-test[bot]", "type": "Bot"}},
            "bot unassigned",
        ),
    ],
)
def test_cancel(
    redis_client: redis.Redis, event: str, name: str, change: dict[str, Any], reason: str
) -> None:
    run(redis_client, "issues", labeled(), "start")
    data = {**payload(event, name), **change}
    assert run(redis_client, event, data, "cancel") == "task_cancelled"
    record = TaskStore(redis_client).get(KEY)
    assert record is not None and record.status is TaskStatus.CANCELLED
    assert record.status_reason is not None and reason in record.status_reason
    # Labelling again after a cancel starts afresh.
    assert run(redis_client, "issues", labeled(), "again") == "task_started"


def test_a_cancel_while_a_step_holds_the_task_goes_to_its_inbox(
    redis_client: redis.Redis,
) -> None:
    """The holder may be in a long agent call: no waiting for it, the step hears it."""
    run(redis_client, "issues", labeled(), "start")
    data = {**payload("issues", "labeled"), "action": "closed"}
    with hold(redis_client, KEY):
        started = time.monotonic()
        assert run(redis_client, "issues", data, "cancel") == "cancel_requested"
        assert time.monotonic() - started < CANCEL_WAIT_S + 1
    store = TaskStore(redis_client)
    [item] = store.inbox(KEY)
    assert isinstance(item, CancelRequest) and "issue closed" in item.reason
    record = store.get(KEY)
    assert record is not None and record.status is TaskStatus.ACTIVE
    assert step_job_id(KEY, 0, "dcancel") in queue(redis_client).job_ids


def test_cancel_without_task(redis_client: redis.Redis) -> None:
    data = {**payload("issues", "labeled"), "action": "closed"}
    assert run(redis_client, "issues", data, "d1") == "no_active_task"


def test_command_goes_to_the_task_inbox(redis_client: redis.Redis) -> None:
    run(redis_client, "issues", labeled(), "start")
    data = payload("issue_comment", "created.1")
    data["comment"]["body"] = "please\n/agentium stop now"
    assert run(redis_client, "issue_comment", data, "c1") == "forwarded_command"
    [item] = TaskStore(redis_client).inbox(KEY)
    assert isinstance(item, CommandRequest)
    assert item.command == "stop" and item.args == "now"
    assert item.user == "Codertocat" and item.delivery == "c1"
    assert step_job_id(KEY, 0, "dc1") in queue(redis_client).job_ids  # heard at once


def test_a_plain_comment_is_an_answer_only_while_a_question_waits(
    redis_client: redis.Redis,
) -> None:
    run(redis_client, "issues", labeled(), "start")
    data = payload("issue_comment", "created.1")
    data["comment"]["body"] = "Use a semicolon."
    assert "no question waits" in run(redis_client, "issue_comment", data, "c1")
    store = TaskStore(redis_client)
    assert store.inbox(KEY) == []
    record = store.get(KEY)
    assert record is not None
    point = Pause(
        phase=Phase.IMPLEMENT,
        awaiting=Awaiting(role=Role.WORKER),
        reason=f"{QUESTION_REASON} (after 3 same failures in IMPLEMENT)",
    )
    record.workflow = record.workflow.model_copy(update={"phase": Phase.BLOCKED, "paused": point})
    store.save(record, lease=None)
    assert run(redis_client, "issue_comment", data, "c2") == "forwarded_reply"
    [item] = store.inbox(KEY)
    assert isinstance(item, IssueReply) and item.body == "Use a semicolon."
    assert item.user == "Codertocat" and item.delivery == "c2"


def test_unknown_command_is_ignored(redis_client: redis.Redis) -> None:
    run(redis_client, "issues", labeled(), "start")
    data = payload("issue_comment", "created.1")
    data["comment"]["body"] = "/agentium dance"
    assert "unknown command" in run(redis_client, "issue_comment", data, "c1")
    assert TaskStore(redis_client).inbox(KEY) == []


def test_review_on_the_bots_pr_goes_to_the_task(redis_client: redis.Redis) -> None:
    run(redis_client, "issues", labeled(), "start")
    store = TaskStore(redis_client)
    record = store.get(KEY)
    assert record is not None
    record.pr_number = payload("pull_request_review", "submitted")["pull_request"]["number"]
    store.save(record, lease=None)
    review = payload("pull_request_review", "submitted")
    assert run(redis_client, "pull_request_review", review, "r1") == "forwarded_review"
    comment = payload("pull_request_review_comment", "created")
    assert run(redis_client, "pull_request_review_comment", comment, "r2") == (
        "forwarded_review_comment"
    )
    assert [item.kind for item in store.inbox(KEY)] == ["review", "review_comment"]


def test_review_on_another_pr_does_nothing(redis_client: redis.Redis) -> None:
    review = payload("pull_request_review", "submitted")
    assert run(redis_client, "pull_request_review", review, "r1") == "no_task"


def test_closing_the_bots_pr_unmerged_cancels(redis_client: redis.Redis) -> None:
    run(redis_client, "issues", labeled(), "start")
    store = TaskStore(redis_client)
    record = store.get(KEY)
    assert record is not None
    closed = payload("pull_request", "closed")
    record.pr_number = closed["pull_request"]["number"]
    store.save(record, lease=None)
    closed["pull_request"]["merged"] = False
    assert run(redis_client, "pull_request", closed, "p1") == "task_cancelled"


def test_installation_is_recorded(redis_client: redis.Redis) -> None:
    data = payload("installation", "created")
    assert run(redis_client, "installation", data, "i1") == "installation_recorded"
    assert redis_client.hget("agentium:installation:957387", "action") == b"created"


def test_bot_sender_is_ignored_by_the_worker_too(redis_client: redis.Redis) -> None:
    data = labeled()
    data["sender"] = {"login": "agentium-test[bot]", "type": "Bot"}
    assert run(redis_client, "issues", data, "d1") == "ignored: sent by a bot"


def test_payload_missing_fields_is_ignored_not_crashed(redis_client: redis.Redis) -> None:
    assert run(redis_client, "issues", {"action": "labeled"}, "d1").startswith("ignored")


def test_a_failing_delivery_fails_the_batch_after_the_others_are_applied(
    redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from config import keys

    redis_client.set(keys.delivery_body("good"), json.dumps(labeled()))
    real = deliveries.process_stored

    def flaky(r: redis.Redis, rules: Rules, meta: DeliveryMeta, schedule: Any) -> str:
        if meta.delivery == "bad":
            raise ConnectionError("lost Redis for a moment")
        return real(r, rules, meta, schedule)

    monkeypatch.setattr(deliveries, "process_stored", flaky)
    metas = [DeliveryMeta(delivery=d, event="issues", action="labeled") for d in ("bad", "good")]
    with pytest.raises(deliveries.DeliveriesFailed, match="1 of 2"):
        deliveries.process_batch(redis_client, RULES, metas, scheduler(queue(redis_client)))
    assert TaskStore(redis_client).get(KEY) is not None  # "good" was applied anyway


def test_a_body_that_expired_is_reported(redis_client: redis.Redis) -> None:
    from workers.intake.deliveries import process_stored

    meta = DeliveryMeta(delivery="gone", event="issues", action="labeled")
    schedule = scheduler(queue(redis_client))
    assert process_stored(redis_client, RULES, meta, schedule) == "ignored: body expired"
