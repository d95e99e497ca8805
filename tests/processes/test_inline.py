"""Jobs the worker runs in its own process (the deliveries job), against a real Redis and
a real RQ worker: no work-horse, and heartbeats renewed while such a job runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from config import keys
from config.settings import load_settings
from workers.processes import inline
from workers.processes.worker_loop import AgentiumWorker, new_worker

JOBS = "tests.processes.inline_jobs"


def _worker(redis_url: str, tmp_path: Path, name: str) -> AgentiumWorker:
    settings = load_settings({"REDIS_URL": redis_url, "DATA_DIR": str(tmp_path)}, env_file=None)
    return new_worker(settings, name=name)


def test_only_the_deliveries_job_runs_inline() -> None:
    assert {keys.HANDLE_DELIVERIES_JOB} == inline.INLINE


def test_an_inline_job_runs_in_the_worker_and_any_other_in_a_work_horse(
    redis_url: str, redis_client: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inline, "INLINE", frozenset({f"{JOBS}.pid"}))
    worker = _worker(redis_url, tmp_path, "inline-test")
    here = worker.queues[0].enqueue(f"{JOBS}.pid")
    elsewhere = worker.queues[0].enqueue(f"{JOBS}.pid_elsewhere")
    worker.work(burst=True)
    assert here.return_value() == os.getpid()
    assert elsewhere.return_value() not in (None, os.getpid())


def test_an_inline_jobs_heartbeats_are_renewed_while_it_runs(
    redis_url: str, redis_client: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing else renews them meanwhile: without it a long inline job (a delivery waiting
    on GitHub) would be found abandoned and run again by another worker."""
    monkeypatch.setattr(inline, "INLINE", frozenset({f"{JOBS}.beating_for"}))
    worker = _worker(redis_url, tmp_path, "heartbeat-test")
    worker.job_monitoring_interval = 0.2  # type: ignore[assignment]
    job = worker.queues[0].enqueue(f"{JOBS}.beating_for", 1.2)
    worker.work(burst=True)
    renewed_after = job.return_value()
    assert renewed_after is not None and renewed_after >= 0.8
