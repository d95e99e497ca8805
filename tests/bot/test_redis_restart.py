"""A Redis restart costs no delivery: a connection the restart closed is replaced at once."""

from __future__ import annotations

from pathlib import Path

from bot.app import build_clients
from bot.intake import Envelope, Intake
from config.settings import load_settings
from workers.processes.embedded_redis import EmbeddedRedis


async def test_the_first_delivery_after_a_restart_is_stored(tmp_path: Path) -> None:
    server = EmbeddedRedis(data_dir=tmp_path).start()
    clients = build_clients(load_settings({"WEBHOOK_SECRET": "x", "REDIS_URL": server.url}))
    intake = Intake(clients.redis)
    try:
        assert await intake.submit(Envelope("before", "issues", "labeled", 0.0, b"{}"))
        server.stop()
        server = EmbeddedRedis(data_dir=tmp_path, port=server.port).start()
        assert await intake.submit(Envelope("after", "issues", "labeled", 0.0, b"{}"))
        assert clients.sync_redis.exists("agentium:delivery:before")  # AOF kept it
    finally:
        await clients.redis.aclose()
        clients.sync_redis.close()
        server.stop()
