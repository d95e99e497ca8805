"""`agentium worker`: an RQ worker that outlives a Redis outage and is found dead soon.

RQ's own loop waits out a Redis it cannot reach while it waits for a job, but a
connection error anywhere else (a heartbeat, maintenance, the end of a job) makes it
quit. A long-running worker that returns without being asked to stop is therefore
started again here, with backoff, a bounded number of times.

A job's heartbeat lives `job_monitoring_interval + HEARTBEAT_GRACE_S` seconds (RQ's own
grace is 60 s), so the job of a worker that died is found abandoned and retried in about
half a minute, like the task lease (docs/design.md §7); the parent process renews it every
`job_monitoring_interval` seconds while the work-horse runs (a thread, while a job runs in
the worker's own process: `workers.processes.inline`).
"""

from __future__ import annotations

import logging
import os
import signal
import time

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue, Worker
from rq.job import Job
from rq.worker import WorkerStatus

from config.settings import Settings
from workers.engine.leftovers import LeftoverSweep
from workers.engine.session import TASKS
from workers.gitops.cache import CACHE
from workers.gitops.cache_sweep import CacheSweep
from workers.gitops.workspace import WORKSPACES
from workers.processes.inline import Heartbeats, runs_inline
from workers.processes.warmhorse import WarmHorse
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.worker")

MONITOR_EVERY_S = 10
HEARTBEAT_GRACE_S = 20
MAINTENANCE_EVERY_S = 10  # finds abandoned jobs; a lock makes it one worker at a time
MAX_RESTARTS = 1000
BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0)
STOP = (signal.SIGTERM, signal.SIGINT)


class AgentiumWorker(Worker):
    leftovers: LeftoverSweep | None = None  # this machine's old checkouts, swept between jobs
    copies: CacheSweep | None = None  # this machine's unused repository copies, likewise
    warm_horses = True  # fork each job's work-horse ahead of it (workers/processes/warmhorse.py)

    def run_maintenance_tasks(self) -> None:
        super().run_maintenance_tasks()  # type: ignore[no-untyped-call]
        if self.leftovers is not None:
            self.leftovers.maybe_run()
        if self.copies is not None:
            self.copies.maybe_run()

    warm: WarmHorse | None = None  # the next job's work-horse, forked while idle

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """About to wait for a job: have its work-horse ready first."""
        if self.warm is None and self.warm_horses:
            try:
                self.warm = WarmHorse.fork(self)
            except OSError:  # no process or memory to spare now: the job forks as usual
                log.warning("could not fork a work-horse ahead of the next job", exc_info=True)
        return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)

    def fork_work_horse(self, job: Job, queue: Queue) -> None:
        """Hand the job to the warm horse; fork one as RQ does if there is none."""
        horse, self.warm = self.warm, None
        execution = self.execution
        if horse is None or execution is None or not horse.start(job.id, execution.id, queue.name):
            if horse is not None:
                horse.retire()
            super().fork_work_horse(job, queue)
            return
        os.environ.update(RQ_WORKER_ID=self.name, RQ_JOB_ID=job.id)
        self._horse_pid = horse.pid
        self.procline(f"Handed {job.id} to {horse.pid} at {time.time()}")  # type: ignore[no-untyped-call]

    def teardown(self) -> None:
        if self.warm is not None:
            self.warm.retire()
            self.warm = None
        super().teardown()  # type: ignore[no-untyped-call]

    def execute_job(self, job: Job, queue: Queue) -> None:
        """Fork a work-horse for the job, or run it here when it is one of ``INLINE``."""
        if not runs_inline(job):
            super().execute_job(job, queue)
            return
        execution = self.prepare_execution(job)
        with Heartbeats(self, job, execution):
            self.perform_job(job, queue, execution)
        self.set_state(WorkerStatus.IDLE)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        rq_ttl = int(super().get_heartbeat_ttl(job, working_time))
        return min(rq_ttl, int(self.job_monitoring_interval) + HEARTBEAT_GRACE_S)


def new_worker(settings: Settings, name: str | None) -> AgentiumWorker:
    connection = Redis.from_url(str(settings.redis_url))
    worker = AgentiumWorker(
        [Queue(settings.queue_name, connection=connection)],
        connection=connection,
        name=name,
        worker_ttl=30,
        maintenance_interval=MAINTENANCE_EVERY_S,
        job_monitoring_interval=MONITOR_EVERY_S,
    )
    worker.leftovers = leftover_sweep(settings, TaskStore(connection))
    worker.copies = cache_sweep(settings)
    return worker


def leftover_sweep(settings: Settings, store: TaskStore) -> LeftoverSweep:
    data = settings.data_dir.expanduser().resolve()
    return LeftoverSweep(
        store,
        roots=(data / WORKSPACES, data / TASKS),
        ttl_s=settings.checkout_ttl_s,
        every_s=settings.checkout_sweep_every_s,
    )


def cache_sweep(settings: Settings) -> CacheSweep:
    data = settings.data_dir.expanduser().resolve()
    return CacheSweep(
        data / CACHE, ttl_s=settings.git_cache_ttl_s, every_s=settings.checkout_sweep_every_s
    )


def work_once(worker: Worker, settings: Settings, burst: bool, max_jobs: int | None) -> bool:
    """Run the worker until it returns; True when it stopped as asked (not on an error).

    A worker told to stop that then loses Redis (its stack stopped around it) has stopped
    as asked: starting it again would leave it running, orphaned, for hours."""
    try:
        worker.work(
            burst=burst, with_scheduler=True, logging_level=settings.log_level, max_jobs=max_jobs
        )
    except RedisError:
        log.exception("worker lost Redis")
    else:
        if burst or max_jobs is not None:
            return True
    return worker._stop_requested or worker._shutdown_requested_date is not None  # a signal


def run_worker(
    settings: Settings, *, name: str | None, burst: bool = False, max_jobs: int | None = None
) -> int:
    """Work until asked to stop; a worker that quits on an error starts again."""
    for attempt in range(MAX_RESTARTS):
        worker_name = name if attempt == 0 or name is None else f"{name}-{attempt}"
        try:
            worker = new_worker(settings, worker_name)
        except RedisError:
            log.exception("cannot build the worker")
        else:
            if work_once(worker, settings, burst, max_jobs):
                return 0
        wait = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
        log.warning("worker quit unexpectedly; starting again", extra={"in_s": wait})
        if stopped_while_waiting(wait):
            return 0
    return 1


def stopped_while_waiting(seconds: float) -> bool:
    """Wait before starting again; True when SIGTERM or SIGINT came meanwhile (RQ's own
    handlers, left from the last run, would only ask a worker that is not running)."""
    asked: list[int] = []
    previous = {sig: signal.signal(sig, lambda got, _: asked.append(got)) for sig in STOP}
    try:
        deadline = time.monotonic() + seconds
        while not asked and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return bool(asked)
