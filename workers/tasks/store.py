"""Tasks in Redis: the record as JSON, an index by last update, an inbox, a lock."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from redis import Redis
from redis.lock import Lock

from config.keys import PREFIX
from workers.tasks.record import TaskRecord, utcnow

LOCK_TTL_S = 30  # renewed every 10 s while the holder lives; a dead holder's expires soon
LOCK_WAIT_S = 10


class TaskBusy(RuntimeError):
    """Another job holds the task's lock; the job is retried later."""


def _record_key(key: str) -> str:
    return f"{PREFIX}:task:{key}"


def _inbox_key(key: str) -> str:
    return f"{PREFIX}:task:{key}:inbox"


def _lock_key(key: str) -> str:
    return f"{PREFIX}:lock:{key}"


INDEX = f"{PREFIX}:tasks"
PR_INDEX = f"{PREFIX}:pr"


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TaskStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def get(self, key: str) -> TaskRecord | None:
        raw = self._redis.get(_record_key(key))
        return TaskRecord.model_validate_json(raw) if raw is not None else None

    def save(self, record: TaskRecord) -> None:
        record.updated_at = utcnow()
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(_record_key(record.key), record.model_dump_json())
            pipe.zadd(INDEX, {record.key: record.updated_at.timestamp()})
            if record.pr_number is not None:
                pipe.hset(PR_INDEX, f"{record.repo.lower()}#{record.pr_number}", record.key)
            pipe.execute()

    def task_keys(self) -> list[str]:
        """Task keys, most recently updated first."""
        return [_text(k) for k in self._redis.zrevrange(INDEX, 0, -1)]

    def task_for_pr(self, repo: str, pr_number: int) -> str | None:
        found = self._redis.hget(PR_INDEX, f"{repo.lower()}#{pr_number}")
        return _text(found) if found is not None else None

    def push_inbox(self, key: str, item: dict[str, Any]) -> None:
        """Queue a command or review for the task's next step."""
        self._redis.rpush(_inbox_key(key), json.dumps(item))

    def inbox(self, key: str) -> list[dict[str, Any]]:
        return [json.loads(raw) for raw in self._redis.lrange(_inbox_key(key), 0, -1)]

    def take_inbox(self, key: str) -> list[dict[str, Any]]:
        """Everything queued for the task, removed atomically."""
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.lrange(_inbox_key(key), 0, -1)
            pipe.delete(_inbox_key(key))
            raw, _ = pipe.execute()
        return [json.loads(item) for item in raw]

    def requeue_inbox(self, key: str, items: list[dict[str, Any]]) -> None:
        """Put items back at the front (e.g. reviews kept until the task completes)."""
        if items:
            self._redis.lpush(_inbox_key(key), *[json.dumps(i) for i in reversed(items)])

    def is_locked(self, key: str) -> bool:
        return bool(self._redis.exists(_lock_key(key)))

    @contextmanager
    def locked(self, key: str, wait_s: float = LOCK_WAIT_S) -> Iterator[Lock]:
        """Hold the task's lock; TaskBusy if another job keeps it past `wait_s`."""
        lock = self._redis.lock(f"{PREFIX}:lock:{key}", timeout=LOCK_TTL_S, blocking_timeout=wait_s)
        if not lock.acquire():
            raise TaskBusy(key)
        try:
            yield lock
        finally:
            lock.release()
