"""What the bot already did on GitHub for a task, so a retried job does not do it twice.

One Redis hash per task (``repo#issue``): comment ids by marker, the PR, the check run,
hashes of the last bodies written. Entries that belong to one run of the task (feedback
comments, the plan) carry the run id in their marker, so a new run posts its own.
"""

from __future__ import annotations

import hashlib

from redis import Redis

from config import keys

MARKS_TTL_S = 90 * 24 * 3600


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class TaskMarks:
    def __init__(self, redis: Redis, task_key: str) -> None:
        self._redis = redis
        self._key = keys.task_marks(task_key)

    def get(self, name: str) -> str | None:
        raw = self._redis.hget(self._key, name)
        if raw is None:
            return None
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    def get_int(self, name: str) -> int | None:
        value = self.get(name)
        return int(value) if value is not None and value.isdigit() else None

    def set(self, name: str, value: str | int) -> None:
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self._key, name, str(value))
            pipe.expire(self._key, MARKS_TTL_S)
            pipe.execute()

    def forget(self, name: str) -> None:
        self._redis.hdel(self._key, name)

    def unchanged(self, name: str, text: str) -> bool:
        """True when ``text`` is what was last written under ``name``."""
        return self.get(f"hash:{name}") == digest(text)

    def wrote(self, name: str, text: str) -> None:
        self.set(f"hash:{name}", digest(text))
