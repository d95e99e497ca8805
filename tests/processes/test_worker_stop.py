"""A worker told to stop stops, even when Redis goes away around it (a real worker process,
a Redis of its own)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Queue

from tests.processes.test_processes import ROOT, wait_for
from workers.processes.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.slow


def test_a_busy_worker_stopped_while_its_redis_goes_away_does_not_start_again(
    tmp_path: Path,
) -> None:
    """`agentium run` stopping (or dying: the worker gets SIGTERM from its lifeline) stops
    Redis too; a worker that then lost Redis used to start again and wait for it for
    hours, orphaned."""
    with EmbeddedRedis(data_dir=tmp_path / "redis") as server:
        env = {k: v for k, v in os.environ.items() if k != "APP_ID"}
        env |= {
            "REDIS_URL": server.url,
            "DATA_DIR": str(tmp_path / "data"),
            "PYTHONPATH": str(ROOT),
        }
        worker = subprocess.Popen(
            [sys.executable, "-m", "workers.processes.cli", "worker"],
            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        connection = redis.Redis.from_url(server.url)
        job = Queue("agentium", connection=connection).enqueue(
            "tests.processes.inline_jobs.beating_for", 30.0
        )
        wait_for(lambda: job.get_status(refresh=True) == "started", timeout=30)
        worker.send_signal(signal.SIGTERM)  # a warm stop: it waits for the job
        time.sleep(0.5)
    worker.send_signal(signal.SIGTERM)  # Redis is gone; now a cold stop
    try:
        worker.wait(timeout=20)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0
