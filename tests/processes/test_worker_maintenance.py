"""A worker's maintenance between jobs also sweeps its machine's old checkouts."""

from __future__ import annotations

import os
import time
from pathlib import Path

from config.settings import load_settings
from workers.engine.leftovers import claim
from workers.processes.worker_loop import AgentiumWorker, new_worker
from workers.tasks.record import TaskRecord, TaskStatus
from workers.tasks.store import TaskStore


def _worker(redis_url: str, data: Path, name: str, **settings: str) -> AgentiumWorker:
    given = {"REDIS_URL": redis_url, "DATA_DIR": str(data), **settings}
    return new_worker(load_settings(given, env_file=None), name=name)


def test_maintenance_removes_an_ended_tasks_old_checkout(
    redis_url: str, redis_client: object, tmp_path: Path
) -> None:
    worker = _worker(redis_url, tmp_path, "maintenance-test", CHECKOUT_TTL_S="60")
    store = TaskStore(worker.connection)
    done = TaskRecord(repo="o/r", issue=1, trigger_user="u", trigger_delivery="d")
    store.save(done.model_copy(update={"status": TaskStatus.FINISHED}), lease=None)
    busy = done.model_copy(update={"issue": 2})
    store.save(busy, lease=None)
    old = time.time() - 120
    paths = {}
    for record in (done, busy):
        path = tmp_path / "workspaces" / f"o__r__{record.issue}"
        path.mkdir(parents=True)
        claim(path, record.key)
        os.utime(path.with_name(path.name + ".task"), (old, old))
        paths[record.issue] = path

    worker.run_maintenance_tasks()

    assert not paths[1].exists()  # finished, unused for two minutes
    assert paths[2].exists()  # still active


def test_maintenance_removes_a_repository_copy_unused_past_its_ttl(
    redis_url: str, redis_client: object, tmp_path: Path
) -> None:
    worker = _worker(redis_url, tmp_path, "maintenance-copies-test", GIT_CACHE_TTL_S="3600")
    cache = tmp_path / "git-cache"
    for name in ("o__old", "o__new"):
        (cache / f"{name}.git" / "objects").mkdir(parents=True)
        (cache / f"{name}.spares").mkdir()
        (cache / f"{name}.used").touch()
    old = time.time() - 7200
    os.utime(cache / "o__old.used", (old, old))

    worker.run_maintenance_tasks()

    assert sorted(path.name for path in cache.iterdir()) == [
        "o__new.git",
        "o__new.spares",
        "o__new.used",
    ]
