"""The intake's group commit: concurrent submits share a write, each learns its own answer."""

from __future__ import annotations

import asyncio
import json

import pytest
import redis
from redis.asyncio import Redis as AsyncRedis

import bot.intake
from bot.intake import Envelope, Intake, decode_entry
from bot.redis_call import SoleConnection
from config import keys
from config.wire import DeliveryMeta


def envelope(delivery: str, body: bytes = b'{"action": "labeled"}') -> Envelope:
    return Envelope(delivery, "issues", "labeled", 1700000000.5, body)


async def test_concurrent_submits_share_writes_and_each_gets_its_answer(
    redis_url: str, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = AsyncRedis.from_url(redis_url)
    intake = Intake(client)
    writes: list[int] = []
    write = bot.intake._write

    async def counted(connection: SoleConnection, batch: list) -> None:  # type: ignore[type-arg]
        writes.append(len(batch))
        await write(connection, batch)

    monkeypatch.setattr(bot.intake, "_write", counted)
    ids = [f"d{i}" for i in range(40)] + ["d3", "d7"]  # two redeliveries in flight
    big = b'{"action": "labeled", "pad": "' + b"x" * 30_000 + b'"}'
    try:
        answers = await asyncio.gather(*(intake.submit(envelope(d, big)) for d in ids))
    finally:
        await client.aclose()
    new = [delivery for delivery, added in zip(ids, answers, strict=True) if added]
    assert sorted(new) == sorted(ids[:40])  # each id stored by exactly one of its submits
    assert sum(writes) == len(ids) and len(writes) < len(ids)
    assert max(writes) <= bot.intake.MAX_BATCH
    entries = [json.loads(raw) for raw in redis_client.lrange(keys.INTAKE, 0, -1)]
    assert sorted(e["delivery"] for e in entries) == sorted(ids[:40])
    assert {
        "delivery": "d39",
        "event": "issues",
        "action": "labeled",
        "received_at": 1700000000.5,
    } in entries
    assert redis_client.get(keys.delivery_body("d5")) == big
    assert redis_client.ttl(keys.delivery_seen("d5")) > 7 * 24 * 3600


async def test_a_redelivery_after_the_write_is_a_duplicate(redis_url: str) -> None:
    client = AsyncRedis.from_url(redis_url)
    intake = Intake(client)
    try:
        assert await intake.submit(envelope("once"))
        assert not await intake.submit(envelope("once"))
    finally:
        await client.aclose()


async def test_every_waiter_of_a_failed_write_gets_the_error() -> None:
    client = AsyncRedis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    intake = Intake(client)
    try:
        results = await asyncio.gather(
            *(intake.submit(envelope(f"x{i}")) for i in range(3)), return_exceptions=True
        )
    finally:
        await client.aclose()
    assert all(isinstance(result, (redis.RedisError, OSError)) for result in results)


def test_an_entry_is_the_wire_model_the_workers_read() -> None:
    envelope = Envelope("d-1", "issues", "labeled", 1700000000.5, b"{}")
    assert decode_entry(envelope.entry()) == DeliveryMeta(
        delivery="d-1", event="issues", action="labeled", received_at=1700000000.5
    )
