"""Stored deliveries to applied intents: each delivery decided and applied once.

The receiver stored the body under ``keys.delivery_body`` (what the bot reads of it:
``bot.projection``, read here as the whole body would be); the dispatcher hands a batch
of entries (:class:`config.wire.DeliveryMeta`) to one job. A delivery is decided (what it
means for the bot) and applied (on the task store) once: a "handled" marker makes a
repeated job harmless, and the body is dropped once the delivery is handled.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import ValidationError
from redis import Redis

from config import keys
from config.wire import DeliveryMeta
from workers.intake.apply import Schedule, apply_intent
from workers.intake.intents import Ignore, Rules, decide
from workers.intake.payloads import Event
from workers.tasks.store import TaskStore

log = logging.getLogger("agentium.jobs")  # the name the logs have always used


class DeliveriesFailed(RuntimeError):
    """Some deliveries of a batch raised; RQ retries the batch (handled ones are skipped)."""


def read_metas(raw: list[dict[str, Any]]) -> list[DeliveryMeta]:
    """The job's arguments, validated where they are read."""
    return [DeliveryMeta.model_validate(meta) for meta in raw]


def process_batch(
    redis: Redis, rules: Rules, metas: list[DeliveryMeta], schedule: Schedule
) -> list[str]:
    decisions, failed = [], []
    for meta in metas:
        try:
            decisions.append(process_stored(redis, rules, meta, schedule))
        except Exception:
            log.exception("delivery failed", extra={"delivery": meta.delivery})
            failed.append(meta.delivery)
    if failed:
        raise DeliveriesFailed(f"{len(failed)} of {len(metas)} deliveries failed: {failed}")
    return decisions


def process_stored(redis: Redis, rules: Rules, meta: DeliveryMeta, schedule: Schedule) -> str:
    """Handle a delivery whose body the receiver stored; the body is dropped once handled."""
    body_key = keys.delivery_body(meta.delivery)
    body = redis.get(body_key)
    if body is None:
        if redis.exists(keys.delivery_handled(meta.delivery)):
            return "already_handled"
        return "ignored: body expired"
    decision = process_delivery(redis, rules, meta, body, schedule)
    redis.delete(body_key)
    return decision


def process_delivery(
    redis: Redis, rules: Rules, meta: DeliveryMeta, body: str | bytes, schedule: Schedule
) -> str:
    """Decide and apply once per delivery id; a repeated job returns 'already_handled'."""
    started = time.perf_counter()
    handled = keys.delivery_handled(meta.delivery)
    if redis.exists(handled):
        decision = "already_handled"
    else:
        decision = _decide_and_apply(redis, rules, meta, body, schedule)
        redis.set(handled, decision, ex=keys.DELIVERY_TTL_S)
    log.info(
        "job",
        extra={
            "delivery": meta.delivery,
            "event": meta.event,
            "action": meta.action,
            "decision": decision,
            "ms": round((time.perf_counter() - started) * 1000, 3),
        },
    )
    return decision


def _decide_and_apply(
    redis: Redis, rules: Rules, meta: DeliveryMeta, body: str | bytes, schedule: Schedule
) -> str:
    try:
        event = Event.model_validate_json(body)
    except ValidationError as exc:
        return f"ignored: payload lacks fields the bot needs ({exc.error_count()} errors)"
    intent = decide(meta.event, event, rules)
    if isinstance(intent, Ignore):
        return f"ignored: {intent.reason}"
    return apply_intent(intent, TaskStore(redis), redis, meta.delivery, schedule)
