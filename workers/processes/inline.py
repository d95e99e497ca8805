"""Jobs a worker runs in its own process: no work-horse forked for them.

RQ forks a work-horse for every job, which keeps a step's crash or timeout from taking the
worker down. For the deliveries job, which only reads Redis, writes the task store and
enqueues a step (and at most asks GitHub for a repository's trigger label), the fork and the
work-horse's start were most of its cost: about 15 ms on the way from a webhook to a
task's first step (README Performance). RQ's own ``SimpleWorker`` runs every job that way;
this runs only the jobs named in ``INLINE``.

A job running in the worker's process stops the worker's loop, which is what renews the
worker's and the job's heartbeats while a work-horse runs. :class:`Heartbeats` renews them
from a thread instead, every ``job_monitoring_interval``, so a delivery that waits on
GitHub (retries included) is never taken for abandoned and run twice. The job's timeout
is RQ's, by ``SIGALRM`` in the worker's main thread, as for a ``SimpleWorker``.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from rq import Worker
from rq.executions import Execution
from rq.job import Job

from config import keys

log = logging.getLogger("agentium.worker")

INLINE = frozenset({keys.HANDLE_DELIVERIES_JOB})


def runs_inline(job: Job) -> bool:
    return job.func_name in INLINE


class Heartbeats:
    """Renews the worker's, the job's and the execution's heartbeats until the job ends."""

    def __init__(self, worker: Worker, job: Job, execution: Execution) -> None:
        self._worker, self._job, self._execution = worker, job, execution
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="agentium-heartbeats", daemon=True)

    def __enter__(self) -> Heartbeats:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        every = float(self._worker.job_monitoring_interval)
        while not self._done.wait(every):
            try:
                self._worker.maintain_heartbeats(self._job, self._execution)
            except Exception:  # the next beat tries again; the job goes on meanwhile
                log.exception("could not renew the heartbeats of an inline job")
