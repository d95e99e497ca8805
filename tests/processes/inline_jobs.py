"""Jobs the inline tests enqueue by name (RQ imports them in the worker or work-horse)."""

from __future__ import annotations

import os
import time

from rq import get_current_job


def pid() -> int:
    return os.getpid()


def beating_for(seconds: float) -> float:
    """Sleep, then say how long after the job's start its heartbeat was last renewed."""
    time.sleep(seconds)
    job = get_current_job()
    assert job is not None and job.started_at is not None
    job.refresh()
    assert job.last_heartbeat is not None
    return (job.last_heartbeat - job.started_at).total_seconds()


def pid_elsewhere() -> int:
    return os.getpid()


def faults_touching_everything() -> tuple[int, int]:
    """The work-horse's pid and the page faults it takes touching every module's objects
    (what a step does on its way to its first call, and more)."""
    import resource
    import sys

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            del value
    return os.getpid(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
