"""RQ jobs: the workers' composition root, where real clients are built.

The web side enqueues `handle_deliveries` by import string (config.keys).
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import replace
from typing import Any

from pydantic import ValidationError
from redis import Redis
from rq import Queue, get_current_job

from config import keys
from config.defaults import load_bot_defaults
from config.settings import Settings, load_settings
from workers.engine import driver as steps
from workers.engine import scheduling
from workers.engine.repo_settings import trigger_label_of
from workers.intake.apply import Schedule, apply_intent
from workers.intake.intents import Ignore, Rules, decide
from workers.intake.payloads import Event
from workers.intake.repo_labels import RepoLabels
from workers.runtime import Runtime, build_runtime
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.jobs")


@functools.cache
def settings() -> Settings:
    """This process's settings, read once."""
    return load_settings()


@functools.cache
def rules() -> Rules:
    """The trigger rules for this process, read once from the settings and defaults."""
    defaults = load_bot_defaults()
    return Rules(defaults.trigger_label, settings().bot_login, defaults.commands)


@functools.cache
def runtime() -> Runtime:
    """GitHub, Anthropic and the sandbox, built once per worker process.

    `agentium worker` builds it before it starts taking jobs, so every forked work-horse
    inherits it instead of building it again.
    """
    config = settings()
    config.require("redis_url")
    return build_runtime(config, Redis.from_url(str(config.redis_url)))


def rules_for(rt: Runtime | None) -> Rules:
    """The trigger rules, with each repository's own label when the App can read it."""
    base = rules()
    if rt is None:
        return base
    labels = RepoLabels(rt.redis, lambda *where: trigger_label_of(rt, *where), base.trigger_label)
    return replace(base, repo_label=labels)


def _app_runtime() -> Runtime | None:
    """The runtime when this process is configured as the App (not in bare tests)."""
    return runtime() if settings().app_id is not None else None


def _connection() -> Redis:
    job = get_current_job()
    if job is None:
        raise RuntimeError("this function runs inside an RQ job")
    return job.connection


def scheduler(queue: Queue) -> Schedule:
    return lambda record, cause: scheduling.schedule_step(queue, record, cause)


def run_step(key: str) -> str:
    """The RQ job for one step of a task (see workers.engine.driver)."""
    rt = runtime()
    return steps.advance(
        rt,
        key,
        lambda record: scheduling.schedule_step(rt.queue, record),
        lambda busy: scheduling.schedule_recheck(rt.queue, busy),
    )


def sweep() -> int:
    """The RQ job that re-enqueues stale tasks and schedules itself again."""
    redis = _connection()
    return scheduling.sweep(Queue(settings().queue_name, connection=redis), TaskStore(redis))


class DeliveriesFailed(RuntimeError):
    """Some deliveries of a batch raised; RQ retries the batch (handled ones are skipped)."""


def handle_deliveries(metas: list[dict[str, Any]]) -> list[str]:
    """The RQ job for a batch of intake entries: each delivery decided and applied once."""
    redis = _connection()
    schedule = scheduler(Queue(settings().queue_name, connection=redis))
    return process_batch(redis, rules_for(_app_runtime()), metas, schedule)


def process_batch(
    redis: Redis, rules: Rules, metas: list[dict[str, Any]], schedule: Schedule
) -> list[str]:
    decisions, failed = [], []
    for meta in metas:
        try:
            decisions.append(process_stored(redis, rules, meta, schedule))
        except Exception:
            log.exception("delivery failed", extra={"delivery": meta.get("delivery")})
            failed.append(str(meta.get("delivery")))
    if failed:
        raise DeliveriesFailed(f"{len(failed)} of {len(metas)} deliveries failed: {failed}")
    return decisions


def process_stored(redis: Redis, rules: Rules, meta: dict[str, Any], schedule: Schedule) -> str:
    """Handle a delivery whose body the receiver stored; the body is dropped once handled."""
    body_key = keys.delivery_body(str(meta["delivery"]))
    body = redis.get(body_key)
    if body is None:
        if redis.exists(keys.delivery_handled(str(meta["delivery"]))):
            return "already_handled"
        return "ignored: body expired"
    decision = process_delivery(redis, rules, meta, body, schedule)
    redis.delete(body_key)
    return decision


def process_delivery(
    redis: Redis, rules: Rules, meta: dict[str, Any], body: str | bytes, schedule: Schedule
) -> str:
    """Decide and apply once per delivery id; a repeated job returns 'already_handled'."""
    started = time.perf_counter()
    delivery = str(meta["delivery"])
    handled = keys.delivery_handled(delivery)
    if redis.exists(handled):
        decision = "already_handled"
    else:
        decision = _decide_and_apply(redis, rules, meta, body, schedule)
        redis.set(handled, decision, ex=keys.DELIVERY_TTL_S)
    log.info(
        "job",
        extra={
            "delivery": delivery,
            "event": meta.get("event"),
            "action": meta.get("action"),
            "decision": decision,
            "ms": round((time.perf_counter() - started) * 1000, 3),
        },
    )
    return decision


def _decide_and_apply(
    redis: Redis, rules: Rules, meta: dict[str, Any], body: str | bytes, schedule: Schedule
) -> str:
    try:
        event = Event.model_validate_json(body)
    except ValidationError as exc:
        return f"ignored: payload lacks fields the bot needs ({exc.error_count()} errors)"
    intent = decide(str(meta["event"]), event, rules)
    if isinstance(intent, Ignore):
        return f"ignored: {intent.reason}"
    return apply_intent(intent, TaskStore(redis), redis, str(meta["delivery"]), schedule)
