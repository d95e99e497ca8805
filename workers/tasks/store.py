"""Tasks in Redis: the record as JSON, an index by last update, an inbox, a lease.

A save under a lease is fenced (docs/design.md §7): one script checks that the lease
still holds the saver's token and that the stored record is the version the saver read,
then writes the record and its indexes; otherwise nothing is written and the saver gets
LeaseLost or StaleRecord. A late writer is refused, never merged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from redis import Redis

from config import keys
from workers.tasks import inbox, lease
from workers.tasks.inbox import InboxItem
from workers.tasks.lease import Lease, LeaseLost, StaleRecord, TaskBusy
from workers.tasks.record import TaskRecord, utcnow

__all__ = ["TaskBusy", "TaskStore"]

# KEYS: record, index, PR index, lease. ARGV: token ("" = unfenced), the version read,
# the JSON, the task key, its score, the PR index field ("" = none).
_SAVE = """
if ARGV[1] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[1] then return 'lease' end
if ARGV[1] ~= '' then
  local stored = redis.call('GET', KEYS[1])
  if stored then
    local ok, decoded = pcall(cjson.decode, stored)
    local version = ok and tonumber(decoded['version']) or 0
    if version ~= tonumber(ARGV[2]) then return 'version' end
  end
end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[3], ARGV[6], ARGV[4]) end
return 'ok'
"""


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TaskStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def get(self, key: str) -> TaskRecord | None:
        raw = self._redis.get(keys.task_record(key))
        return TaskRecord.model_validate_json(raw) if raw is not None else None

    def save(self, record: TaskRecord, *, lease: Lease | None) -> None:
        """Write the record; with a lease, only if it holds and nobody wrote since the read.

        Every step and intake writer passes its lease; None is for fixtures and tools that
        own the task outright. On success ``record.version`` is the stored version."""
        if lease is not None and lease.lost:
            raise LeaseLost(record.key)
        read = record.version
        if lease is None:  # written outright: after whatever is stored
            current = self.get(record.key)
            read = current.version if current is not None else read
        stored = record.model_copy(update={"updated_at": utcnow(), "version": read + 1})
        pr_field = keys.task_pr(record.repo, record.pr_number) if record.pr_number else ""
        answer = self._redis.eval(
            _SAVE,
            4,
            keys.task_record(record.key),
            keys.TASK_INDEX,
            keys.TASK_PR_INDEX,
            keys.task_lease(record.key),
            lease.token if lease is not None else "",
            read,
            stored.model_dump_json(),
            record.key,
            stored.updated_at.timestamp(),
            pr_field,
        )
        if _text(answer) == "lease":
            raise LeaseLost(record.key)
        if _text(answer) == "version":
            raise StaleRecord(record.key)
        record.updated_at, record.version = stored.updated_at, stored.version

    def count_recovery(self, actions: Sequence[str]) -> None:
        """Add ladder steps just saved with their task to the all-time counts that
        ``agentium_recovery_total`` reports (a counter: it never goes down)."""
        if not actions:
            return
        with self._redis.pipeline(transaction=False) as pipe:
            for action in actions:
                pipe.hincrby(keys.RECOVERY_COUNTS, action, 1)
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

    def inbox_size(self, key: str) -> int:
        return int(self._redis.llen(keys.task_inbox(key)))

    def is_leased(self, key: str) -> bool:
        """Somebody holds the task's lease (a step in flight, however long it takes)."""
        return lease.is_held(self._redis, key)

    def lease_left(self, key: str) -> float:
        """Seconds until the task's lease expires unless its holder renews it."""
        return lease.time_left(self._redis, key)

    @contextmanager
    def leased(
        self, key: str, wait_s: float = lease.WAIT_S, *, renew: bool = True
    ) -> Iterator[Lease]:
        """Hold the task's lease, renewed in the background while the block runs;
        TaskBusy if another holder keeps it past `wait_s`."""
        every = lease.RENEW_EVERY_S if renew else None
        with lease.hold(self._redis, key, wait_s=wait_s, renew_every_s=every) as held:
            yield held
