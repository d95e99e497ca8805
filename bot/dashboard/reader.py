"""Reads tasks, their GitHub marks and the queues from Redis; never writes."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from redis.asyncio import Redis

from bot.dashboard.model import TaskView, parse_task
from config import keys

CHUNK = 200  # records per MGET
RQ_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass(frozen=True)
class Marks:
    """What the workers recorded doing on GitHub: the PR, NOMERGE and other comments."""

    pr_url: str | None = None
    nomerge_url: str | None = None
    head_sha: str | None = None
    comments: list[tuple[str, str]] = field(default_factory=list)  # (name, url)


@dataclass(frozen=True)
class QueueFigures:
    depth: int
    oldest_age_s: float | None


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _raw(value: object) -> bytes | None:
    """A stored value as bytes (the client answers bytes; a str would be encoded)."""
    if value is None:
        return None
    return value if isinstance(value, bytes) else str(value).encode()


def parse_marks(raw: Mapping[bytes | str, bytes | str]) -> Marks:
    fields = {_text(k): _text(v) for k, v in raw.items()}
    comments = []
    for name, value in sorted(fields.items()):
        _id, _, url = value.partition(" ")
        if name.startswith(keys.MARK_COMMENT) and url.startswith(("https://", "http://")):
            comments.append((name.split(":", 2)[-1], url))
    return Marks(
        pr_url=fields.get(keys.MARK_PR_URL),
        nomerge_url=fields.get(keys.MARK_NOMERGE_URL),
        head_sha=fields.get(keys.MARK_CHECK_SHA),
        comments=comments,
    )


class TaskReader:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def count(self) -> int:
        return int(await self._redis.zcard(keys.TASK_INDEX))

    async def tasks(self, start: int, count: int) -> list[TaskView]:
        """Tasks ``start .. start+count-1`` by last update, newest first."""
        names = await self._redis.zrevrange(keys.TASK_INDEX, start, start + count - 1)
        return await self._records([_text(n) for n in names])

    async def get(self, task_key: str) -> TaskView | None:
        raw = _raw(await self._redis.get(keys.task_record(task_key)))
        return parse_task(raw) if raw is not None else None

    async def marks(self, task_key: str) -> Marks:
        return parse_marks(await self._redis.hgetall(keys.task_marks(task_key)))

    async def subtask_statuses(
        self, task_key: str, wave: int, attempt: int, ids: Sequence[str]
    ) -> dict[str, str]:
        """The live status of a running wave's subtasks (from its board; absent ones left out)."""
        if not ids:
            return {}
        board = keys.wave_board(task_key, wave, max(1, attempt))
        values = await self._redis.hmget(board, [f"{i}:status" for i in ids])
        return {i: _text(v) for i, v in zip(ids, values, strict=True) if v is not None}

    async def newest_raw(self, limit: int) -> tuple[list[bytes], int]:
        """Up to ``limit`` newest records as stored (unparsed), and how many are indexed."""
        total = int(await self._redis.zcard(keys.TASK_INDEX))
        names = await self._redis.zrevrange(keys.TASK_INDEX, 0, limit - 1)
        found: list[bytes] = []
        for start in range(0, len(names), CHUNK):
            chunk = [keys.task_record(_text(n)) for n in names[start : start + CHUNK]]
            values = [_raw(value) for value in await self._redis.mget(chunk)]
            found.extend(raw for raw in values if raw is not None)
        return found, total

    async def recovery_counts(self) -> dict[str, int]:
        """Recovery ladder steps ever taken, by action (the workers count them as saved)."""
        raw = await self._redis.hgetall(keys.RECOVERY_COUNTS)
        return {_text(action): int(count) for action, count in raw.items()}

    async def intake(self, list_key: str) -> QueueFigures:
        """An intake list (newest first); its oldest entry's ``received_at`` gives the age."""
        depth = int(await self._redis.llen(list_key))
        oldest = _raw(await self._redis.lindex(list_key, -1))
        return QueueFigures(depth, _intake_age(oldest, time.time()))

    async def rq_queue(self, name: str) -> QueueFigures:
        """An RQ queue (oldest job first); the job hash's ``enqueued_at`` gives the age."""
        depth = int(await self._redis.llen(keys.rq_queue(name)))
        first = await self._redis.lindex(keys.rq_queue(name), 0)
        if first is None:
            return QueueFigures(depth, None)
        stamp = _raw(await self._redis.hget(keys.rq_job(_text(first)), "enqueued_at"))
        return QueueFigures(depth, _rq_age(stamp, datetime.now(UTC)))

    async def _records(self, names: list[str]) -> list[TaskView]:
        if not names:
            return []
        raws = [_raw(raw) for raw in await self._redis.mget([keys.task_record(n) for n in names])]
        tasks = (parse_task(raw) for raw in raws if raw is not None)
        return [task for task in tasks if task is not None]


def _intake_age(raw: bytes | None, now: float) -> float | None:
    if raw is None:
        return None
    try:
        received = float(json.loads(raw)["received_at"])
    except (ValueError, KeyError, TypeError):
        return None
    return max(0.0, now - received)


def _rq_age(raw: bytes | None, now: datetime) -> float | None:
    if raw is None:
        return None
    try:
        enqueued = datetime.strptime(_text(raw), RQ_TIME_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None
    return max(0.0, (now - enqueued).total_seconds())
