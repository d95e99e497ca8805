"""A worker's sweep of old checkouts: ended tasks' go after their time to live, active
tasks' stay, a task whose lease is held is left alone (real Redis, real directories)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
import redis

from workers.engine.leftovers import LeftoverSweep, claim, marker_of
from workers.tasks.record import TaskRecord, TaskStatus
from workers.tasks.store import TaskStore

HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def task(store: TaskStore, issue: int, status: TaskStatus) -> str:
    record = TaskRecord(repo="o/r", issue=issue, trigger_user="u", trigger_delivery="d")
    store.save(record.model_copy(update={"status": status}), lease=None)
    return record.key


def checkout(root: Path, name: str, key: str | None) -> Path:
    path = root / "workspaces" / name
    (path / ".git").mkdir(parents=True)
    (path / "README.md").write_text("x")
    if key is not None:
        claim(path, key)
    return path


def age(path: Path, seconds: float) -> None:
    """Make ``path`` (and its marker) look last used ``seconds`` ago."""
    then = time.time() - seconds
    for each in (path, marker_of(path)):
        if each.exists():
            os.utime(each, (then, then))


@pytest.fixture
def store(redis_client: redis.Redis) -> TaskStore:
    return TaskStore(redis_client)


def sweeper(store: TaskStore, root: Path, clock: Clock) -> LeftoverSweep:
    roots = (root / "workspaces", root / "tasks")
    return LeftoverSweep(store, roots, ttl_s=HOUR, every_s=300, clock=clock)


def test_ended_tasks_go_active_ones_stay(store: TaskStore, tmp_path: Path) -> None:
    finished = checkout(tmp_path, "o__r__1", task(store, 1, TaskStatus.FINISHED))
    cancelled = checkout(tmp_path, "o__r__2", task(store, 2, TaskStatus.CANCELLED))
    active = checkout(tmp_path, "o__r__3", task(store, 3, TaskStatus.ACTIVE))
    gone = checkout(tmp_path, "o__r__4", "o/r#4")  # its record expired from Redis
    unmarked = checkout(tmp_path, "o__r__5", None)
    recent = checkout(tmp_path, "o__r__6", task(store, 6, TaskStatus.FINISHED))
    for path in (finished, cancelled, active, gone, unmarked):
        age(path, 2 * HOUR)
    age(recent, HOUR / 2)

    removed = sweeper(store, tmp_path, Clock()).run()

    assert sorted(removed) == sorted([finished, cancelled, gone, unmarked])
    for path in removed:
        assert not path.exists() and not marker_of(path).exists()
    assert (active / "README.md").exists() and (recent / "README.md").exists()


def test_a_task_with_a_held_lease_is_left_for_next_time(store: TaskStore, tmp_path: Path) -> None:
    key = task(store, 7, TaskStatus.FINISHED)  # reopened by a review: a step runs now
    path = checkout(tmp_path, "o__r__7", key)
    age(path, 2 * HOUR)
    sweep = sweeper(store, tmp_path, Clock())
    with store.leased(key, renew=False):
        assert sweep.run() == []
    assert (path / "README.md").exists()
    assert sweep.run() == [path]
    assert not store.is_leased(key)  # the sweep gave its own lease back


def test_a_step_claiming_the_directory_renews_its_life(store: TaskStore, tmp_path: Path) -> None:
    key = task(store, 8, TaskStatus.FINISHED)
    path = checkout(tmp_path, "o__r__8", key)
    age(path, 2 * HOUR)
    claim(path, key)  # a step of the task used it just now
    assert sweeper(store, tmp_path, Clock()).run() == []


def test_it_runs_at_most_once_per_interval(store: TaskStore, tmp_path: Path) -> None:
    clock = Clock()
    sweep = sweeper(store, tmp_path, clock)
    first = checkout(tmp_path, "o__r__9", None)
    age(first, 2 * HOUR)
    assert sweep.maybe_run() == [first]
    second = checkout(tmp_path, "o__r__10", None)
    age(second, 2 * HOUR)
    clock.now += 299
    assert sweep.maybe_run() == []  # too soon
    clock.now += 2
    assert sweep.maybe_run() == [second]


def test_state_copies_are_swept_like_checkouts(store: TaskStore, tmp_path: Path) -> None:
    state = tmp_path / "tasks" / "o__r__11__d"
    (state / "phases").mkdir(parents=True)
    claim(state, task(store, 11, TaskStatus.FINISHED))
    age(state, 2 * HOUR)
    assert sweeper(store, tmp_path, Clock()).run() == [state]


def test_a_marker_outliving_its_directory_goes_too(store: TaskStore, tmp_path: Path) -> None:
    path = checkout(tmp_path, "o__r__12", task(store, 12, TaskStatus.ACTIVE))
    age(path, 2 * HOUR)
    fresh = checkout(tmp_path, "o__r__13", "o/r#13")
    for each in (path, fresh):
        shutil.rmtree(each)  # the finishing step removed its checkout, not the marker
    assert sweeper(store, tmp_path, Clock()).run() == []
    assert not marker_of(path).exists() and marker_of(fresh).exists()  # fresh: not yet
