"""One attempt of a wave in Redis (docs/design.md §8): where it starts, and each subtask's
status, result and patch.

Fields of the hash ``keys.wave_board(task, wave, attempt)``:

    start            the commit every subtask starts from (set once, at the first launch)
    <id>:status      pending | running | completed | failed | budget
    <id>:launch      how often the subtask was launched (names its jobs)
    <id>:lost        how often a launch's worker died before the subtask ended
    <id>:result      JSON: text, error, started_at, finished_at, spend, run
    <id>:patch       its changes, as a patch against ``start``

The subtask jobs write their own fields, fenced by their subtask's lease (a script compares
its token first, so a job that lost its lease writes nothing); the join (holding the
task's lease) reads them all.
A subtask ``failed`` when its agent could not be run; ``budget`` when the task's budget ran
out; its problem with the join (too many changes) is ``problem`` in the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from redis import Redis

from config import keys
from workers.controller.spend import Spend
from workers.engine.join import SubtaskOutput
from workers.tasks.lease import Lease, LeaseLost

# KEYS: the board, the lease. ARGV: its token, the board's TTL, then field, value, ...
_FENCED_SET = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""


class SubtaskStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    BUDGET = "budget"


ENDED = frozenset({SubtaskStatus.COMPLETED, SubtaskStatus.FAILED, SubtaskStatus.BUDGET})


class SubtaskRecord(BaseModel):
    text: str = ""
    error: str = ""
    problem: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    spend: Spend = Spend()
    run: int = 0  # the launch that made it


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


class WaveBoard:
    def __init__(self, redis: Redis, task_key: str, wave: int, attempt: int) -> None:
        self._redis = redis
        self.key = keys.wave_board(task_key, wave, attempt)

    def _set(self, mapping: Mapping[str, str], lease: Lease | None = None) -> None:
        """Write fields; with a lease, only while it holds (LeaseLost otherwise)."""
        if lease is not None:
            lease.raise_if_lost()
            args: list[str | int] = [self.key, lease.name, lease.token, keys.WAVE_BOARD_TTL_S]
            args += [part for item in mapping.items() for part in item]
            if not self._redis.eval(_FENCED_SET, 2, *args):
                raise LeaseLost(lease.task)
            return
        fields: dict[Any, Any] = dict(mapping)
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.key, mapping=fields)
            pipe.expire(self.key, keys.WAVE_BOARD_TTL_S)
            pipe.execute()

    def start(self) -> str:
        return _text(self._redis.hget(self.key, "start"))

    def set_start(self, commit: str) -> str:
        """Record the starting commit unless one is recorded; the one that holds."""
        self._redis.hsetnx(self.key, "start", commit)
        self._redis.expire(self.key, keys.WAVE_BOARD_TTL_S)
        return self.start()

    def statuses(self, ids: Sequence[str]) -> dict[str, SubtaskStatus | None]:
        values = self._redis.hmget(self.key, [f"{i}:status" for i in ids])
        return {i: SubtaskStatus(_text(v)) if v else None for i, v in zip(ids, values, strict=True)}

    def all_ended(self, ids: Sequence[str]) -> bool:
        return all(status in ENDED for status in self.statuses(ids).values())

    def launch(self, subtask: str) -> int:
        """Mark the subtask pending for a new launch; its launch number."""
        number = int(self._redis.hincrby(self.key, f"{subtask}:launch", 1))
        self._set({f"{subtask}:status": SubtaskStatus.PENDING.value})
        return number

    def launches(self, subtask: str) -> int:
        return int(_text(self._redis.hget(self.key, f"{subtask}:launch")) or 0)

    def lost(self, subtask: str) -> int:
        """Count one more run of the subtask whose worker died; how many so far."""
        return int(self._redis.hincrby(self.key, f"{subtask}:lost", 1))

    def mark_running(self, subtask: str, lease: Lease | None = None) -> None:
        self._set({f"{subtask}:status": SubtaskStatus.RUNNING.value}, lease)

    def finish(
        self,
        subtask: str,
        status: SubtaskStatus,
        record: SubtaskRecord,
        patch: str = "",
        *,
        lease: Lease | None = None,
    ) -> None:
        """The subtask's end; ``lease`` is the subtask job's (None: the step's, which
        gives up a subtask whose workers kept dying)."""
        fields = {
            f"{subtask}:status": status.value,
            f"{subtask}:result": record.model_dump_json(),
            f"{subtask}:patch": patch,
        }
        self._set(fields, lease)

    def record(self, subtask: str) -> SubtaskRecord:
        raw = self._redis.hget(self.key, f"{subtask}:result")
        return SubtaskRecord.model_validate_json(raw) if raw else SubtaskRecord()

    def output(self, subtask: str) -> SubtaskOutput:
        record = self.record(subtask)
        patch = _text(self._redis.hget(self.key, f"{subtask}:patch"))
        return SubtaskOutput(
            subtask,
            record.text,
            patch,
            record.error,
            record.started_at,
            record.finished_at,
            record.problem,
        )

    def forget(self, subtasks: Sequence[str]) -> None:
        """Drop subtasks' results (failed ones, reported): the next launch runs them again."""
        fields = [f"{i}:{part}" for i in subtasks for part in ("status", "result", "patch")]
        if fields:
            self._redis.hdel(self.key, *fields)

    def delete(self) -> None:
        self._redis.delete(self.key)
