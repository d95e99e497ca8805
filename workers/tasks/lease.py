"""A task's lease: one holder at a time, alive exactly as long as its holder, fenced.

    with hold(redis, key) as lease:        # TaskBusy when another holder keeps it past wait_s
        ...                                # renewed every RENEW_EVERY_S by a thread
        lease.check()                      # LeaseLost once it expired or another holds it
        store.save(record, lease=lease)    # refused (LeaseLost) unless the lease still holds

The lease is a Redis key holding a random token, set with ``NX`` and a TTL of
``LEASE_TTL_S``. A daemon thread of the holder extends it every ``RENEW_EVERY_S`` with a
compare-and-expire script, so a step may run an agent call for half an hour and keep its
task, while a holder that dies (SIGKILL, a machine gone) loses it at most ``LEASE_TTL_S``
after its last renewal. A holder whose renewal finds the key gone or another token knows
it lost the lease and every fenced write of its step is refused: the writes that matter
(the task's record, its state files, pushes and GitHub posts) check the token first, the
Redis ones atomically in the same script. See docs/design.md §7.

The same machinery leases other things a job works on alone: ``name`` is then the Redis
key of that lease, ``task`` still the task it belongs to (a wave's subtask holds
``keys.subtask_lease(...)``, docs/design.md §8).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from redis import Redis
from redis.exceptions import RedisError

from config import keys

log = logging.getLogger("agentium.lease")

LEASE_TTL_S = 30.0  # a dead holder's lease expires this long after its last renewal
RENEW_EVERY_S = 10.0  # so two renewals may fail (a Redis blip) before the lease is lost
WAIT_S = 10.0  # how long a step waits for a lease somebody else holds
POLL_S = 0.1

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class TaskBusy(RuntimeError):
    """Another holder keeps the task's lease; the job is tried again later."""


class Fenced(RuntimeError):
    """A write was refused because this step no longer owns the task; the step ends."""


class LeaseLost(Fenced):
    """The step's lease expired or another holder took it."""


class StaleRecord(Fenced):
    """The stored record changed since this step read it."""


class Lease:
    """One holder's claim on a task (or, under ``name``, on a part of it); ``token`` is what
    fenced writes compare."""

    def __init__(
        self,
        redis: Redis,
        task: str,
        token: str,
        ttl_s: float = LEASE_TTL_S,
        clock: Callable[[], float] = time.monotonic,
        *,
        name: str | None = None,
    ) -> None:
        self.task = task
        self.name = name or keys.task_lease(task)
        self.token = token
        self.ttl_s = ttl_s
        self._redis = redis
        self._clock = clock
        self._renewed_at = clock()
        self._lost = threading.Event()

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def _mark_lost(self, why: str) -> None:
        if not self._lost.is_set():
            log.warning("lease lost", extra={"task": self.task, "lease": self.name, "why": why})
        self._lost.set()

    def renew(self) -> bool:
        """Extend the lease to a full TTL; False (and lost) when it is not ours any more."""
        if self.lost:
            return False
        try:
            ok = self._redis.eval(_RENEW, 1, self.name, self.token, int(self.ttl_s * 1000))
        except RedisError:
            # Not lost yet: the key may still hold our token. Lost for certain once a
            # whole TTL has passed since the last renewal that went through.
            if self._clock() - self._renewed_at >= self.ttl_s:
                self._mark_lost("Redis unreachable for a whole TTL")
            return False
        if not ok:
            self._mark_lost("expired or taken over")
            return False
        self._renewed_at = self._clock()
        return True

    def raise_if_lost(self) -> None:
        """LeaseLost once the renewal found the lease gone (no Redis round trip)."""
        if self.lost:
            raise LeaseLost(self.task)

    def check(self) -> None:
        """Raise LeaseLost unless this holder still owns the task (one Redis read)."""
        if not self.lost:
            held = self._redis.get(self.name)
            if isinstance(held, bytes):
                held = held.decode()
            if held == self.token:
                return
            self._mark_lost("found gone at a write")
        raise LeaseLost(self.task)

    def release(self) -> None:
        """Give the lease up if it is still ours (never someone else's)."""
        try:
            self._redis.eval(_RELEASE, 1, self.name, self.token)
        except RedisError:
            log.warning("lease not released; it expires", extra={"task": self.task})


class Renewer:
    """The background thread that keeps a lease alive while its holder runs."""

    def __init__(self, lease: Lease, every_s: float = RENEW_EVERY_S) -> None:
        self._lease = lease
        self._every = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease-{lease.task}", daemon=True)

    def start(self) -> Renewer:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self._lease.renew()
            if self._lease.lost:
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)


def acquire(
    redis: Redis,
    task: str,
    *,
    name: str | None = None,
    wait_s: float = WAIT_S,
    ttl_s: float = LEASE_TTL_S,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Lease:
    """Take the task's lease (or the lease ``name``), waiting up to `wait_s` for its
    holder; TaskBusy otherwise."""
    token = secrets.token_hex(16)
    name = name or keys.task_lease(task)
    deadline = clock() + wait_s
    while not redis.set(name, token, nx=True, px=int(ttl_s * 1000)):
        if clock() >= deadline:
            raise TaskBusy(task)
        sleep(POLL_S)
    return Lease(redis, task, token, ttl_s, clock, name=name)


@contextmanager
def hold(
    redis: Redis,
    task: str,
    *,
    name: str | None = None,
    wait_s: float = WAIT_S,
    ttl_s: float = LEASE_TTL_S,
    renew_every_s: float | None = RENEW_EVERY_S,
) -> Iterator[Lease]:
    """Hold the task's lease (or the lease ``name``) for the block, renewed in the
    background (unless None)."""
    lease = acquire(redis, task, name=name, wait_s=wait_s, ttl_s=ttl_s)
    renewer = Renewer(lease, renew_every_s).start() if renew_every_s else None
    try:
        yield lease
    finally:
        if renewer is not None:
            renewer.stop()
        lease.release()


def time_left(redis: Redis, task: str, *, name: str | None = None) -> float:
    """Seconds until the task's lease (or the lease ``name``) expires unless renewed; 0
    when nobody holds it."""
    left = int(redis.pttl(name or keys.task_lease(task)))
    return max(0.0, left / 1000) if left > 0 else 0.0


def is_held(redis: Redis, task: str, *, name: str | None = None) -> bool:
    return bool(redis.exists(name or keys.task_lease(task)))
