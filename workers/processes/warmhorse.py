"""A work-horse forked before its job arrives, its memory already its own.

RQ forks a work-horse when a job arrives. The fork itself is quick, but the new process
shares its parent's memory copy-on-write: the first time the job touches each page of the
objects it inherited (Python writes a reference count on every use), the kernel stops and
copies that page. A step touches thousands of them on its way to its first model call;
on a VM each copy costs microseconds, tens of milliseconds in all (README Performance).

So an idle worker forks the next job's work-horse in advance. If no job comes within
``SETTLE_S`` (the next step of a busy task comes at once, and then the copies cost no
more than in a fresh fork), the horse touches every object the interpreter tracks
(``gc.get_objects``), which makes their pages its own while nothing waits; then it blocks
on a pipe. When a job arrives the worker writes the job's id to the
pipe; the horse fetches the job, its queue and its execution from Redis (as RQ's own
``SpawnWorker`` does) and runs it exactly as a freshly forked one would. The worker
monitors, times out and kills it as any work-horse.

Costs: the memory of one warm horse per idle worker (the pages it made its own, about
50 MB for a worker here), and the CPU of touching them (about 60 ms here), spent while
the worker is idle.
A warm horse that died meanwhile is replaced by an ordinary fork; one whose worker dies
gets SIGKILL (``PR_SET_PDEATHSIG``) or reads the end of its pipe, and exits. A step it was
running ends with it, as a killed `agentium run` leaves nothing running: the task's lease
expires and another worker takes the step again (docs/design.md §7).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
from collections.abc import Callable

from rq import Worker
from rq.executions import Execution

from workers.processes.lifeline import die_with_parent

SETTLE_S = 0.25  # a job that comes sooner runs at once; after it, the horse copies its pages


class WarmHorse:
    def __init__(self, pid: int, pipe: int) -> None:
        self.pid = pid
        self._pipe: int | None = pipe

    @classmethod
    def fork(cls, worker: Worker) -> WarmHorse:
        arm = die_with_parent(signal.SIGKILL)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the horse
            os.close(write)
            _wait_and_work(worker, read, arm)
        os.close(read)
        return cls(pid, write)

    def start(self, job_id: str, execution_id: str, queue_name: str) -> bool:
        """Hand the job to the horse; False when it is gone (the caller forks as usual)."""
        if self._pipe is None or not self._alive():
            return False
        message = json.dumps([job_id, execution_id, queue_name]).encode() + b"\n"
        try:
            os.write(self._pipe, message)
        except OSError:
            return False
        finally:
            os.close(self._pipe)
            self._pipe = None
        return True

    def retire(self) -> None:
        """End an unused horse and reap it."""
        if self._pipe is not None:
            os.close(self._pipe)
            self._pipe = None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)

    def _alive(self) -> bool:
        try:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return done == 0


def _wait_and_work(worker: Worker, pipe: int, arm: Callable[[], None] | None) -> None:
    """The horse: own its memory, wait for a job, run it like RQ's work-horse; never
    returns."""
    try:
        os.setpgrp()  # its own process group, as RQ's horses: the worker kills it by group
        if arm is not None:
            arm()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if not select.select([pipe], [], [], SETTLE_S)[0]:  # idle: copy the pages now
            touched = gc.get_objects()  # a reference to each: every page holding one copied
            del touched
        line = _read_line(pipe)
        if not line:
            os._exit(0)  # retired, or the worker is gone
        job_id, execution_id, queue_name = json.loads(line)
        os.environ.update(RQ_WORKER_ID=worker.name, RQ_JOB_ID=job_id, RQ_EXECUTION_ID=execution_id)
        connection = worker.connection
        job = worker.job_class.fetch(job_id, connection=connection, serializer=worker.serializer)
        queue = worker.queue_class(
            queue_name,
            connection=connection,
            job_class=worker.job_class,
            serializer=worker.serializer,
            death_penalty_class=worker.death_penalty_class,
        )
        execution = Execution.fetch(execution_id, job.id, connection=connection)
        execution._job = job
        worker.execution = execution
    except BaseException:
        os._exit(1)
    worker.main_work_horse(job, queue)
    os._exit(0)


def _read_line(pipe: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(pipe, 4096)
        if not chunk:
            return b""
        data += chunk
    return data
