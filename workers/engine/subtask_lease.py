"""The lease a subtask job holds on its subtask (docs/design.md §8).

The subtasks of a wave run at once, so each holds a lease on itself, not on the task: the
join, the wave review and every other step hold the task's. The lease is a Redis lock with
a short expiry, renewed in the background while its holder lives, so a worker that dies
mid-subtask frees it within ``LEASE_TTL_S`` and the next launch runs the subtask again;
while it is held, nobody launches the subtask a second time.

Built on the same Redis lock as the task's (``TaskStore.locked``); when the task's lock
becomes a renewed, fenced lease, this one follows it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from redis import Redis
from redis.exceptions import LockError, RedisError

from config import keys

log = logging.getLogger("agentium.subtasks")

LEASE_TTL_S = 30
RENEW_EVERY_S = 10


class SubtaskBusy(RuntimeError):
    """Another job holds the subtask's lease."""


def is_leased(redis: Redis, task_key: str, wave: int, attempt: int, subtask: str) -> bool:
    return bool(redis.exists(keys.subtask_lock(task_key, wave, attempt, subtask)))


@contextmanager
def subtask_lease(
    redis: Redis, task_key: str, wave: int, attempt: int, subtask: str
) -> Iterator[None]:
    """Hold the subtask's lease (renewed every RENEW_EVERY_S); SubtaskBusy if taken."""
    name = keys.subtask_lock(task_key, wave, attempt, subtask)
    lock = redis.lock(name, timeout=LEASE_TTL_S, blocking=False, thread_local=False)
    if not lock.acquire():
        raise SubtaskBusy(name)
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(RENEW_EVERY_S):
            try:
                lock.reacquire()
            except (LockError, RedisError) as error:  # lost or Redis away: try again later
                log.warning("subtask lease not renewed", extra={"error": str(error)[:200]})

    renewer = threading.Thread(target=renew, name=f"lease-{subtask}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        stop.set()
        renewer.join(timeout=5)
        with contextlib.suppress(LockError, RedisError):  # expired meanwhile: nothing to do
            lock.release()
