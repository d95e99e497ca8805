"""Carries out an intent on the task store; every branch is safe to run twice."""

from __future__ import annotations

from collections.abc import Callable

from redis import Redis

from config import keys
from workers.controller.ladder import waiting_for_answer
from workers.intake.intents import Cancel, Forward, Ignore, InstallationChange, Intent, StartTask
from workers.tasks.inbox import CancelRequest, IssueReply, PullRequestClosed
from workers.tasks.record import TaskRecord, TaskStatus, task_key
from workers.tasks.store import TaskBusy, TaskStore

# Enqueues a step of the task; the string names the cause ("" for the chain of steps).
Schedule = Callable[[TaskRecord, str], object]
CANCEL_WAIT_S = 2.0  # a held lease is a running step: it reads the inbox, no need to wait


def apply_intent(
    intent: Intent, store: TaskStore, redis: Redis, delivery: str, schedule: Schedule
) -> str:
    """Apply and return the decision, a short word for the logs and the job's result."""
    match intent:
        case StartTask():
            return _start(intent, store, delivery, schedule)
        case Cancel():
            key = task_key(intent.repo, intent.issue)
            item = CancelRequest(reason=intent.reason, user=intent.user, delivery=delivery)
            return _cancel(store, key, item, schedule)
        case Forward():
            return _forward(intent, store, delivery, schedule)
        case InstallationChange():
            return _installation(intent, redis)
        case Ignore():
            return f"ignored: {intent.reason}"


def _start(intent: StartTask, store: TaskStore, delivery: str, schedule: Schedule) -> str:
    key = task_key(intent.repo, intent.issue)
    existing = store.get(key)
    if existing is not None and existing.status is TaskStatus.ACTIVE:
        return "already_running"  # (its lease may be held for a long agent call)
    with store.leased(key, renew=False) as lease:
        existing = store.get(key)
        if existing is not None and existing.status is TaskStatus.ACTIVE:
            return "already_running"
        record = TaskRecord(
            repo=intent.repo,
            issue=intent.issue,
            installation_id=intent.installation_id,
            trigger_user=intent.user,
            trigger_delivery=delivery,
            issue_title=intent.title,
            issue_body=intent.body,
            version=existing.version if existing is not None else 0,
        )
        store.save(record, lease=lease)
    schedule(record, "")
    return "task_started"


def _cancel(store: TaskStore, key: str, item: CancelRequest, schedule: Schedule) -> str:
    """A task nobody works on that has not started ends here; otherwise the step that
    holds it, or the next one, hears the request from the inbox."""
    try:
        with store.leased(key, CANCEL_WAIT_S, renew=False) as lease:
            record = store.get(key)
            if record is None or record.status is not TaskStatus.ACTIVE:
                return "no_active_task"
            if not record.workflow.started:
                record.status = TaskStatus.CANCELLED
                record.status_reason = item.reason
                store.save(record, lease=lease)
                return "task_cancelled"
    except TaskBusy:  # a step holds the task, maybe for a long agent call
        record = store.get(key)
        if record is None or record.status is not TaskStatus.ACTIVE:
            return "no_active_task"
    store.push_inbox(key, item)
    schedule(record, f"d{item.delivery}")
    return "cancel_requested"


def _forward(intent: Forward, store: TaskStore, delivery: str, schedule: Schedule) -> str:
    key = _resolve(intent, store)
    if key is None:
        return "no_task"
    item = intent.item.model_copy(update={"delivery": delivery})
    if isinstance(item, IssueReply):
        record = store.get(key)
        if record is None or not waiting_for_answer(record.workflow):
            return "ignored: no command, and no question waits for an answer"
    if isinstance(item, PullRequestClosed) and not item.merged:
        reason = f"pull request closed by {item.user}"
        return _cancel(
            store, key, CancelRequest(reason=reason, user=item.user, delivery=delivery), schedule
        )
    store.push_inbox(key, item)
    record = store.get(key)
    if record is not None:
        schedule(record, f"d{delivery}")
    return f"forwarded_{item.kind}"


def _resolve(intent: Forward, store: TaskStore) -> str | None:
    if intent.issue is not None:
        key = task_key(intent.repo, intent.issue)
        return key if store.get(key) is not None else None
    if intent.pr is not None:
        return store.task_for_pr(intent.repo, intent.pr)
    return None


def _installation(intent: InstallationChange, redis: Redis) -> str:
    key = keys.installation(intent.installation_id)
    if intent.action == "deleted":
        redis.delete(key)
        return "installation_removed"
    redis.hset(key, mapping={"action": intent.action, "account": intent.account or ""})
    return "installation_recorded"
