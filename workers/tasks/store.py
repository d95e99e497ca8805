"""Tasks in Redis: the record as JSON, an index by last update, an inbox, a lock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from redis import Redis
from redis.lock import Lock

from config import keys
from workers.tasks import inbox
from workers.tasks.inbox import InboxItem
from workers.tasks.record import TaskRecord, utcnow

LOCK_TTL_S = 30  # a dead holder's lock expires this long after its last renewal
LOCK_WAIT_S = 10


class TaskBusy(RuntimeError):
    """Another job holds the task's lock; the job is retried later."""


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TaskStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def get(self, key: str) -> TaskRecord | None:
        raw = self._redis.get(keys.task_record(key))
        return TaskRecord.model_validate_json(raw) if raw is not None else None

    def save(self, record: TaskRecord) -> None:
        record.updated_at = utcnow()
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(keys.task_record(record.key), record.model_dump_json())
            pipe.zadd(keys.TASK_INDEX, {record.key: record.updated_at.timestamp()})
            if record.pr_number is not None:
                pipe.hset(
                    keys.TASK_PR_INDEX, keys.task_pr(record.repo, record.pr_number), record.key
                )
            pipe.execute()

    def task_keys(self) -> list[str]:
        """Task keys, most recently updated first."""
        return [_text(k) for k in self._redis.zrevrange(keys.TASK_INDEX, 0, -1)]

    def task_for_pr(self, repo: str, pr_number: int) -> str | None:
        found = self._redis.hget(keys.TASK_PR_INDEX, keys.task_pr(repo, pr_number))
        return _text(found) if found is not None else None

    def push_inbox(self, key: str, item: InboxItem) -> None:
        """Queue a command or review for the task's next step."""
        self._redis.rpush(keys.task_inbox(key), inbox.encode(item))

    def inbox(self, key: str) -> list[InboxItem]:
        return inbox.decode_all(self._redis.lrange(keys.task_inbox(key), 0, -1))

    def take_inbox(self, key: str) -> list[InboxItem]:
        """Everything queued for the task, removed atomically."""
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.lrange(keys.task_inbox(key), 0, -1)
            pipe.delete(keys.task_inbox(key))
            raw, _ = pipe.execute()
        return inbox.decode_all(raw)

    def requeue_inbox(self, key: str, items: list[InboxItem]) -> None:
        """Put items back at the front (e.g. reviews kept until the task completes)."""
        if items:
            encoded = [inbox.encode(item) for item in reversed(items)]
            self._redis.lpush(keys.task_inbox(key), *encoded)

    def is_locked(self, key: str) -> bool:
        return bool(self._redis.exists(keys.task_lock(key)))

    @contextmanager
    def locked(self, key: str, wait_s: float = LOCK_WAIT_S) -> Iterator[Lock]:
        """Hold the task's lock; TaskBusy if another job keeps it past `wait_s`."""
        lock = self._redis.lock(keys.task_lock(key), timeout=LOCK_TTL_S, blocking_timeout=wait_s)
        if not lock.acquire():
            raise TaskBusy(key)
        try:
            yield lock
        finally:
            lock.release()
