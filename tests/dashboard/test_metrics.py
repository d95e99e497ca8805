"""GET /metrics parsed with prometheus_client's own parser."""

from __future__ import annotations

import json
import time

import redis
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue
from starlette.testclient import TestClient

from bot.app import WEBHOOK_PATH
from bot.metrics import ReceiverMetrics, decision_label, event_label
from config import keys
from tests.dashboard.conftest import MakeClient
from tests.dashboard.stored import finished, record, store, store_examples
from tests.support import delivery_headers, encode, payload
from workers.processes.embedded_redis import free_port
from workers.tasks.store import TaskStore

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: TestClient) -> Samples:
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def deliver(client: TestClient, event: str, name: str = "", **kwargs: str) -> int:
    data = payload(event, name)
    if name == "labeled":
        data["label"]["name"] = "agentium"
    body = encode(data)
    answer = client.post(
        WEBHOOK_PATH, content=body, headers=delivery_headers(event, body, **kwargs)
    )
    return answer.status_code


def test_deliveries_by_event_and_decision(local: TestClient) -> None:
    assert deliver(local, "ping") == 200
    assert deliver(local, "issues", "labeled", delivery="d-1") == 202
    assert deliver(local, "issues", "labeled", delivery="d-1") == 202  # a repeat
    assert deliver(local, "issues", "opened") == 202
    assert deliver(local, "issues", "labeled", secret="wrong") == 401
    samples = scrape(local)
    name = "agentium_webhook_deliveries_total"
    assert value(samples, name, event="ping", decision="ping") == 1
    assert value(samples, name, event="issues", decision="enqueued") == 1
    assert value(samples, name, event="issues", decision="duplicate") == 1
    assert value(samples, name, event="issues", decision="ignored:action") == 1
    assert value(samples, name, event="unverified", decision="rejected:401") == 1
    assert value(samples, "agentium_webhook_duration_seconds_count") == 5
    assert value(samples, "agentium_webhook_duration_seconds_bucket", le="+Inf") == 5
    assert 0 < value(samples, "agentium_webhook_duration_seconds_sum") < 5


def test_labels_stay_bounded() -> None:
    assert event_label("made_up_event", None) == "unverified"
    assert event_label("check_run", "ignored:event") == "other"
    assert event_label("issues", "enqueued") == "issues"
    assert decision_label("enqueued", 503) == "unavailable"
    assert decision_label(None, 413) == "rejected:413"
    assert decision_label("duplicate", 202) == "duplicate"


def test_latency_buckets_hold_answers_up_to_their_bound() -> None:
    metrics = ReceiverMetrics()
    for seconds in (0.003, 0.005, 0.0051, 42.0):
        metrics.observe("issues", "enqueued", 202, seconds)
    for event in ("made_up_1", "made_up_2"):  # header values never become labels
        metrics.observe(event, None, 401, 0.001)
    families = {family.name: family for family in metrics.registry.collect()}
    buckets = {
        sample.labels["le"]: sample.value
        for sample in families["agentium_webhook_duration_seconds"].samples
        if sample.name.endswith("_bucket")
    }
    assert (buckets["0.0025"], buckets["0.005"], buckets["0.01"]) == (2, 4, 5)
    assert (buckets["10.0"], buckets["+Inf"]) == (5, 6)
    counts = {
        tuple(sample.labels.values()): sample.value
        for sample in families["agentium_webhook_deliveries"].samples
    }
    assert counts == {("issues", "enqueued"): 4, ("unverified", "rejected:401"): 2}


def test_task_figures_come_from_redis(redis_client: redis.Redis, local: TestClient) -> None:
    store_examples(redis_client)
    samples = scrape(local)
    assert value(samples, "agentium_redis_up") == 1
    assert value(samples, "agentium_tasks_indexed") == 3
    assert value(samples, "agentium_tasks_scanned") == 3
    tasks = "agentium_tasks"
    assert value(samples, tasks, status="active", phase="IMPLEMENT", path="COMPLEX") == 1
    assert value(samples, tasks, status="finished", phase="COMPLETE", path="SIMPLE") == 1
    assert value(samples, tasks, status="finished", phase="BLOCKED", path="COMPLEX") == 1
    assert value(samples, "agentium_tasks_blocked", kind="final") == 1
    assert value(samples, "agentium_tasks_blocked", kind="paused") == 0
    assert value(samples, "agentium_tasks_nomerge") == 1
    assert value(samples, "agentium_overrides", phase="IMPLEMENT", rule="max_iterations") == 1
    # IMPLEMENT: 2 (issue-22), 1 (budget-exceeded), 2 (in progress)
    iterations = "agentium_task_iterations"
    assert value(samples, f"{iterations}_count", phase="IMPLEMENT") == 3
    assert value(samples, f"{iterations}_sum", phase="IMPLEMENT") == 5
    assert value(samples, f"{iterations}_bucket", phase="IMPLEMENT", le="1.0") == 1
    assert value(samples, f"{iterations}_count", phase="PLAN") == 3


def test_spend_by_model(redis_client: redis.Redis, local: TestClient) -> None:
    store_examples(redis_client)
    samples = scrape(local)
    tokens = "agentium_model_tokens"
    assert value(samples, tokens, model="claude-sonnet", kind="input") == 12_000
    assert value(samples, tokens, model="claude-sonnet", kind="cache_read") == 400
    # budget-exceeded.yml spends on claude-opus too; the in-progress task adds 2,000
    assert value(samples, tokens, model="claude-opus", kind="input") > 2_000
    assert value(samples, "agentium_model_cost_usd", model="claude-sonnet") == 0.75
    assert value(samples, "agentium_model_calls", model="claude-sonnet") == 1


def test_queue_depth_and_age(redis_client: redis.Redis, local: TestClient) -> None:
    entry = {"delivery": "d1", "event": "issues", "received_at": time.time() - 42}
    redis_client.lpush(keys.INTAKE, json.dumps(entry))
    Queue("agentium", connection=redis_client).enqueue("workers.jobs.handle_deliveries", ["d1"])
    samples = scrape(local)
    assert value(samples, "agentium_queue_depth", queue="intake") == 1
    assert value(samples, "agentium_queue_depth", queue="rq") == 1
    assert value(samples, "agentium_queue_depth", queue="intake_processing") == 0
    assert 41 <= value(samples, "agentium_queue_oldest_age_seconds", queue="intake") < 100
    assert value(samples, "agentium_queue_oldest_age_seconds", queue="intake_processing") == 0


def test_redis_down_still_answers(make_client: MakeClient) -> None:
    client = make_client(url=f"redis://127.0.0.1:{free_port()}/0")
    samples = scrape(client)
    assert value(samples, "agentium_redis_up") == 0
    assert ("agentium_tasks_indexed", frozenset()) not in samples
    assert value(samples, "agentium_webhook_duration_seconds_count") == 0


def test_recovery_steps_are_counted_by_action(redis_client: redis.Redis, local: TestClient) -> None:
    """The workers count each ladder step as they save it; a task that is gone (deleted,
    or past the scanned window) keeps its steps in the counter."""
    tasks = TaskStore(redis_client)
    for name in ("replan-then-pass", "scope-reduced", "provider-rollback"):
        tasks.count_recovery([step.action.value for step in finished(name).recovery.steps])
    kept = record("a/b", 1, finished("replan-then-pass"))
    store(redis_client, kept)
    samples = scrape(local)
    total = "agentium_recovery_total"
    assert value(samples, total, action="escalate_model") == 2
    assert value(samples, total, action="replan") == 2
    assert value(samples, total, action="reduce_scope") == 1
    assert value(samples, total, action="rollback_provider") == 1
    assert value(samples, total, action="doctor") == 1
    assert value(samples, total, action="stop") == 0
    assert redis_client.delete(keys.task_record(kept.key), keys.TASK_INDEX) == 2
    assert value(scrape(local), total, action="replan") == 2
