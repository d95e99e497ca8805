"""Turns intake entries into RQ jobs, off the request path, losing nothing.

Entries move atomically from the intake list to a processing list, become one RQ job per
batch (by import string, so the web side never imports worker code), and leave the
processing list in the same transaction that enqueues the job. Entries left in the
processing list by a process that died are put back at start-up; the handler's
per-delivery "handled" marker makes a repeat harmless.

Batching keeps the dispatcher cheap under load: it waits `LINGER_S` after a batch that was
not full, so at high rates one job carries many deliveries instead of one job each.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from redis import Redis
from rq import Queue, Retry

from bot.intake import decode_entry
from config import keys
from config.wire import DeliveryMeta

log = logging.getLogger(__name__)

BATCH = 100
BLOCK_S = 1
LINGER_S = 0.02
JOB_TIMEOUT_S = 600
FAILURE_TTL_S = 7 * 24 * 3600

_TAKE_MORE = """
local taken = {}
for i = 1, tonumber(ARGV[1]) do
  local item = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
  if not item then break end
  taken[#taken + 1] = item
end
return taken
"""

# One command for the batch instead of one LREM per entry (each dispatcher takes from
# the same processing list, so entries are removed by value).
_FORGET = """
for i = 1, #ARGV do redis.call('LREM', KEYS[1], 1, ARGV[i]) end
return #ARGV
"""

_RESTORE = """
local n = 0
while redis.call('RPOPLPUSH', KEYS[1], KEYS[2]) do n = n + 1 end
return n
"""


class Dispatcher:
    def __init__(self, redis: Redis, queue: Queue) -> None:
        self._redis = redis
        self._queue = queue
        self._take_more = redis.register_script(_TAKE_MORE)
        self._restore = redis.register_script(_RESTORE)

    def restore_orphans(self) -> int:
        """Put entries a dead dispatcher was working on back into the intake list."""
        return int(self._restore(keys=[keys.INTAKE_PROCESSING, keys.INTAKE]))

    def take(self, block_s: int = BLOCK_S) -> list[bytes]:
        """Wait up to `block_s` for one entry, then take up to a batch without waiting."""
        first = self._redis.blmove(keys.INTAKE, keys.INTAKE_PROCESSING, block_s, "RIGHT", "LEFT")
        if first is None:
            return []
        rest = self._take_more(keys=[keys.INTAKE, keys.INTAKE_PROCESSING], args=[BATCH - 1])
        return [first, *rest]

    def enqueue(self, entries: Sequence[bytes]) -> None:
        """One RQ job for the batch; the entries leave processing in the same transaction."""
        metas = [decode_entry(entry) for entry in entries]
        with self._redis.pipeline(transaction=True) as pipe:
            self._queue.enqueue_call(
                keys.HANDLE_DELIVERIES_JOB,
                args=([meta.model_dump() for meta in metas],),
                job_id=keys.deliveries_job_id([meta.delivery for meta in metas]),
                timeout=JOB_TIMEOUT_S,
                failure_ttl=FAILURE_TTL_S,
                retry=Retry(max=3, interval=[2, 10, 60]),
                description=_describe(metas),
                pipeline=pipe,
            )
            # EVAL, not a registered script: redis-py would first ask SCRIPT EXISTS, a
            # round trip per batch, and an EVALSHA could fail with NOSCRIPT inside MULTI.
            pipe.eval(_FORGET, 1, keys.INTAKE_PROCESSING, *entries)
            pipe.execute()

    def run_once(self, block_s: int = BLOCK_S) -> int:
        entries = self.take(block_s)
        if entries:
            self.enqueue(entries)
        return len(entries)


def _describe(metas: Sequence[DeliveryMeta]) -> str:
    first = metas[0]
    more = f" and {len(metas) - 1} more" if len(metas) > 1 else ""
    return f"{first.event}.{first.action} {first.delivery}{more}"


class DispatcherThread(threading.Thread):
    """Runs a Dispatcher until stopped; Redis outages are logged and waited out."""

    def __init__(self, dispatcher: Dispatcher, linger_s: float = LINGER_S) -> None:
        super().__init__(name="agentium-dispatcher", daemon=True)
        self._dispatcher = dispatcher
        self._linger_s = linger_s
        self._stopping = threading.Event()

    def run(self) -> None:
        restore = True  # at start, and after a failure that may have left entries behind
        while not self._stopping.is_set():
            try:
                if restore:
                    self._dispatcher.restore_orphans()
                    restore = False
                taken = self._dispatcher.run_once()
            except Exception:
                log.exception("dispatcher step failed; entries stay in Redis")
                restore = True
                self._stopping.wait(2.0)
                continue
            if 0 < taken < BATCH:
                self._stopping.wait(self._linger_s)

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self.join(timeout)
