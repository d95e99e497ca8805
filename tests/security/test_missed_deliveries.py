"""The reconciler against the fake GitHub and the real Redis: failed deliveries, once each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import redis
from rq import Queue
from rq.registry import ScheduledJobRegistry

from config import keys
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_deliveries import DeliveryLog, deliveries
from workers.github.client import GitHubClients
from workers.intake.reconcile import (
    RECONCILE_JOB,
    failed_deliveries,
    reconcile,
    schedule_reconcile,
)

MINUTE = 60.0


def now(clock: ManualClock) -> datetime:
    return datetime.fromtimestamp(clock.now(), UTC)


def add(fake: FakeGitHub, guid: str, status: int, minutes_ago: float = 5) -> int:
    return deliveries(fake).add(guid, status, delivered_at=fake.clock.now() - minutes_ago * MINUTE)


def test_failed_deliveries_are_redelivered_once(
    fake_github: FakeGitHub, clients: GitHubClients, redis_client: redis.Redis, clock: ManualClock
) -> None:
    down = add(fake_github, "g-503", 503)  # Redis was down
    timeout = add(fake_github, "g-timeout", 0)
    add(fake_github, "g-ok", 202)
    add(fake_github, "g-401", 401)  # a bad signature stays bad
    add(fake_github, "g-seen", 502)
    redis_client.set(keys.delivery_seen("g-seen"), "1")  # stored before the proxy failed
    add(fake_github, "g-old", 503, minutes_ago=90)  # past the look-back
    app = clients.app()
    first = reconcile(app, redis_client, now(clock))
    assert sorted(first.redelivered) == sorted([down, timeout])
    assert deliveries(fake_github).attempts == first.redelivered
    assert redis_client.ttl(keys.redelivered("g-503")) > 3600
    clock.advance(10 * MINUTE)
    assert reconcile(app, redis_client, now(clock)).redelivered == []
    assert len(deliveries(fake_github).attempts) == 2


def test_a_redelivery_that_fails_again_is_not_asked_twice(
    fake_github: FakeGitHub, clients: GitHubClients, redis_client: redis.Redis, clock: ManualClock
) -> None:
    log: DeliveryLog = deliveries(fake_github)
    log.outcome = 503
    first = add(fake_github, "g-1", 503)
    assert reconcile(clients.app(), redis_client, now(clock)).redelivered == [first]
    assert [e["guid"] for e in log.entries if e["redelivery"]] == ["g-1"]  # failed again
    again = reconcile(clients.app(), redis_client, now(clock))
    assert again.listed == 2 and again.redelivered == []


def test_pages_are_followed_and_bounded(
    fake_github: FakeGitHub, clients: GitHubClients, redis_client: redis.Redis, clock: ManualClock
) -> None:
    for index in range(130):
        add(fake_github, f"g-{index}", 503, minutes_ago=30 - index * 0.1)
    for index in range(40):  # successes are not listed (status=failure)
        add(fake_github, f"ok-{index}", 202, minutes_ago=1)
    since = now(clock) - timedelta(hours=1)
    assert len(list(failed_deliveries(clients.app(), since, max_pages=1))) == 100
    done = reconcile(clients.app(), redis_client, now(clock))
    assert done.listed == 130 and len(done.redelivered) == 130
    pages = fake_github.calls("GET", "/app/hook/deliveries")
    assert len(pages) == 1 + 2 and all("status=failure" in r.query for r in pages)
    assert "cursor=100" in pages[-1].query
    assert {(r.auth, r.status) for r in fake_github.requests} == {("app", 200), ("app", 202)}


def test_a_refused_redelivery_is_asked_again_next_time(
    fake_github: FakeGitHub, clients: GitHubClients, redis_client: redis.Redis, clock: ManualClock
) -> None:
    delivery = add(fake_github, "g-1", 500)
    fake_github.fail(422, method="POST", path="/attempts")
    assert reconcile(clients.app(), redis_client, now(clock)).redelivered == []
    assert not redis_client.exists(keys.redelivered("g-1"))
    assert reconcile(clients.app(), redis_client, now(clock)).redelivered == [delivery]


def test_a_listing_that_fails_raises_a_github_error(
    fake_github: FakeGitHub, clients: GitHubClients, redis_client: redis.Redis, clock: ManualClock
) -> None:
    from githubkit.exception import GitHubException

    fake_github.fail(404, path="/app/hook/deliveries", times=5)  # the App has no webhook
    try:
        reconcile(clients.app(), redis_client, now(clock))
    except GitHubException:
        return
    raise AssertionError("a failed listing must not look like an empty one")


def test_one_reconcile_job_per_interval(redis_client: redis.Redis) -> None:
    queue = Queue("t", connection=redis_client)
    schedule_reconcile(queue)
    schedule_reconcile(queue)  # a second worker starting
    [job_id] = ScheduledJobRegistry(queue=queue).get_job_ids()
    job = queue.fetch_job(job_id)
    assert job is not None and job.func_name == RECONCILE_JOB
    assert job_id.startswith("reconcile-")
