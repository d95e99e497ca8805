"""Turns intake entries into RQ jobs, off the request path, losing nothing.

Entries move atomically from the intake list to a processing list, become RQ jobs
(by import string, so the web side never imports worker code), and leave the
processing list in the same transaction that enqueues them. Entries left in the
processing list by a process that died are put back at start-up; the job's
deterministic id and the handler's own "handled" marker make a repeat harmless.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from redis import Redis
from rq import Queue, Retry
from rq.queue import EnqueueData

from bot.intake import Envelope
from config import keys

log = logging.getLogger(__name__)

BATCH = 100
BLOCK_S = 1
JOB_TIMEOUT_S = 120
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
        """Create one RQ job per entry and drop the entries from processing, atomically."""
        with self._redis.pipeline(transaction=True) as pipe:
            self._queue.enqueue_many([self._job_data(entry) for entry in entries], pipeline=pipe)
            for entry in entries:
                pipe.lrem(keys.INTAKE_PROCESSING, 1, entry)  # type: ignore[arg-type]  # bytes are fine
            pipe.execute()

    def _job_data(self, entry: bytes) -> EnqueueData:
        meta, body = Envelope.decode(entry)
        return Queue.prepare_data(
            keys.HANDLE_DELIVERY_JOB,
            args=(meta, body.decode("utf-8")),
            job_id=keys.delivery_job_id(meta["delivery"]),
            timeout=JOB_TIMEOUT_S,
            failure_ttl=FAILURE_TTL_S,
            retry=Retry(max=3, interval=[2, 10, 60]),
            description=f"{meta['event']}.{meta['action']} {meta['delivery']}",
        )

    def run_once(self, block_s: int = BLOCK_S) -> int:
        entries = self.take(block_s)
        if entries:
            self.enqueue(entries)
        return len(entries)


class DispatcherThread(threading.Thread):
    """Runs a Dispatcher until stopped; Redis outages are logged and waited out."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        super().__init__(name="agentium-dispatcher", daemon=True)
        self._dispatcher = dispatcher
        self._stopping = threading.Event()

    def run(self) -> None:
        restore = True  # at start, and after a failure that may have left entries behind
        while not self._stopping.is_set():
            try:
                if restore:
                    self._dispatcher.restore_orphans()
                    restore = False
                self._dispatcher.run_once()
            except Exception:
                log.exception("dispatcher step failed; entries stay in Redis")
                restore = True
                self._stopping.wait(2.0)

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        self.join(timeout)
