"""The task lease on the real Redis: renewed while its holder lives, gone soon after it
dies, and fencing every write of a holder that lost it (docs/design.md §7)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from config import keys
from workers.engine.statesync import StateSync
from workers.tasks.lease import LeaseLost, StaleRecord, TaskBusy, acquire, hold
from workers.tasks.record import TaskRecord
from workers.tasks.store import TaskStore

KEY = "o/r#1"
ROOT = Path(__file__).parent.parent.parent


def record(**changes: object) -> TaskRecord:
    base = TaskRecord(repo="o/r", issue=1, trigger_user="u", trigger_delivery="d")
    return base.model_copy(update=changes)


def test_one_holder_at_a_time(redis_client: redis.Redis) -> None:
    with hold(redis_client, KEY) as lease:
        with pytest.raises(TaskBusy):
            acquire(redis_client, KEY, wait_s=0.3)
        lease.check()
    acquire(redis_client, KEY, wait_s=0).release()  # given up at the end of the block


def test_renewal_keeps_the_lease_past_its_ttl(redis_client: redis.Redis) -> None:
    with hold(redis_client, KEY, ttl_s=1.0, renew_every_s=0.2) as lease:
        time.sleep(2.5)
        lease.check()
        assert 0 < redis_client.pttl(keys.task_lease(KEY)) <= 1000
    assert not redis_client.exists(keys.task_lease(KEY))


def test_an_unrenewed_lease_expires_and_its_holder_is_refused(redis_client: redis.Redis) -> None:
    store = TaskStore(redis_client)
    task = record()
    store.save(task, lease=None)
    stale = store.get(KEY)
    assert stale is not None
    with hold(redis_client, KEY, ttl_s=0.5, renew_every_s=None) as late:
        time.sleep(0.8)
        with hold(redis_client, KEY, wait_s=0) as current:
            fresh = store.get(KEY)
            assert fresh is not None
            fresh.status_reason = "the current holder's"
            store.save(fresh, lease=current)
            stale.status_reason = "the late writer's"
            with pytest.raises(LeaseLost):
                store.save(stale, lease=late)
            with pytest.raises(LeaseLost):
                late.check()
            assert not late.renew() and late.lost
            current.check()  # the late holder's release must not touch this one
    saved = store.get(KEY)
    assert saved is not None and saved.status_reason == "the current holder's"
    assert saved.version == 2


def test_a_save_over_a_newer_record_is_refused(redis_client: redis.Redis) -> None:
    store = TaskStore(redis_client)
    store.save(record(), lease=None)
    with hold(redis_client, KEY) as lease:
        read = store.get(KEY)
        assert read is not None
        store.save(record(status_reason="written without the lease"), lease=None)
        read.status_reason = "mine"
        with pytest.raises(StaleRecord):
            store.save(read, lease=lease)
        again = store.get(KEY)
        assert again is not None
        store.save(again, lease=lease)
        store.save(again, lease=lease)  # the version read is updated by each save
    assert store.get(KEY) == again


def test_state_files_are_fenced(redis_client: redis.Redis, tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("plan")
    with hold(redis_client, KEY, ttl_s=0.3, renew_every_s=None) as lease:
        files = StateSync(redis_client, KEY, tmp_path, lease=lease)
        files.save(1)
        time.sleep(0.5)
        with pytest.raises(LeaseLost):
            files.save(2)
    assert redis_client.hget(keys.task_files(KEY), "step") == b"1"


HOLDER = """
import sys, time, redis
from workers.tasks.lease import hold
client = redis.Redis.from_url(sys.argv[1])
with hold(client, "o/r#1", ttl_s=2.0, renew_every_s=0.5):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_killed_holder_loses_the_lease_within_its_ttl(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    client.delete(keys.task_lease(KEY))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, redis_url], stdout=subprocess.PIPE, env=env
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        time.sleep(4)  # twice the TTL: alive, so still held
        assert client.exists(keys.task_lease(KEY))
        holder.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        holder.wait(10)
        while client.exists(keys.task_lease(KEY)):
            assert time.monotonic() - killed < 2.0 + 0.5, "the lease outlived its TTL"
            time.sleep(0.05)
        acquire(client, KEY, wait_s=0).release()
    finally:
        holder.kill()
        client.close()


def test_a_record_saved_before_versions_existed_is_saved_under_a_lease(
    redis_client: redis.Redis,
) -> None:
    legacy = record().model_dump(mode="json")
    del legacy["version"]
    redis_client.set(keys.task_record(KEY), TaskRecord.model_validate(legacy).model_dump_json(
        exclude={"version"}))  # fmt: skip
    store = TaskStore(redis_client)
    with hold(redis_client, KEY) as lease:
        read = store.get(KEY)
        assert read is not None and read.version == 0
        store.save(read, lease=lease)
    saved = store.get(KEY)
    assert saved is not None and saved.version == 1


def test_the_renewer_finds_a_lease_taken_over(redis_client: redis.Redis) -> None:
    """E.g. after Redis lost the key: the holder learns it within one renewal period."""
    with hold(redis_client, KEY, ttl_s=5.0, renew_every_s=0.1) as lease:
        lease.raise_if_lost()
        redis_client.set(keys.task_lease(KEY), "someone else's token")
        time.sleep(0.4)
        assert lease.lost
        with pytest.raises(LeaseLost):
            lease.raise_if_lost()
    assert redis_client.get(keys.task_lease(KEY)) == b"someone else's token"  # left alone
