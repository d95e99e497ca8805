"""Work-horses forked ahead of their job, against a real Redis and a real RQ worker: the
job runs in one, its memory already its own; a dead one is replaced by an ordinary fork;
none outlives its worker."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from config.settings import load_settings
from workers.processes import warmhorse
from workers.processes.warmhorse import WarmHorse
from workers.processes.worker_loop import AgentiumWorker, new_worker

FAULTS = "tests.processes.inline_jobs.faults_touching_everything"


def _worker(redis_url: str, tmp_path: Path, name: str, *, warm: bool = True) -> AgentiumWorker:
    settings = load_settings({"REDIS_URL": redis_url, "DATA_DIR": str(tmp_path)}, env_file=None)
    worker = new_worker(settings, name=name)
    worker.warm_horses = warm
    return worker


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the warm horses forked during the test."""
    pids: list[int] = []
    fork = WarmHorse.fork.__func__  # type: ignore[attr-defined]

    def recording(cls: type[WarmHorse], worker: AgentiumWorker) -> WarmHorse:
        horse: WarmHorse = fork(cls, worker)
        pids.append(horse.pid)
        return horse

    monkeypatch.setattr(warmhorse.WarmHorse, "fork", classmethod(recording))
    return pids


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_job_runs_in_a_horse_forked_before_it_with_its_memory_its_own(
    redis_url: str, redis_client: object, tmp_path: Path, forked: list[int]
) -> None:
    cold_worker = _worker(redis_url, tmp_path, "cold", warm=False)
    cold = cold_worker.queues[0].enqueue(FAULTS)
    cold_worker.work(burst=True)
    worker = _worker(redis_url, tmp_path, "warm")
    worker.warm = WarmHorse.fork(worker)
    time.sleep(warmhorse.SETTLE_S + 1.0)  # idle: it copies its pages meanwhile
    warm = worker.queues[0].enqueue(FAULTS)
    worker.work(burst=True)
    warm_pid, warm_faults = warm.return_value()
    cold_pid, cold_faults = cold.return_value()
    assert warm_pid == forked[0] and cold_pid not in forked
    assert warm_faults * 3 < cold_faults  # its pages were copied before the job came
    assert all(_gone(pid) for pid in forked)  # the one forked for the next job: retired


def test_a_warm_horse_that_died_is_replaced_by_an_ordinary_fork(
    redis_url: str, redis_client: object, tmp_path: Path, forked: list[int]
) -> None:
    worker = _worker(redis_url, tmp_path, "replaced")
    worker.warm = WarmHorse.fork(worker)
    os.kill(forked[0], signal.SIGKILL)
    job = worker.queues[0].enqueue(FAULTS)
    worker.work(burst=True)
    pid, _ = job.return_value()
    assert pid not in forked and pid != os.getpid()
    assert all(_gone(pid) for pid in forked)  # reaped, not left a zombie


def test_a_retired_horse_runs_nothing(redis_url: str, redis_client: object, tmp_path: Path) -> None:
    worker = _worker(redis_url, tmp_path, "retired")
    horse = WarmHorse.fork(worker)
    horse.retire()
    assert _gone(horse.pid)
    assert not horse.start("job", "execution", "queue")
