"""Shared fixtures: one real Redis for the whole run, flushed around every test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from workers.processes.embedded_redis import EmbeddedRedis

TESTS_DIR = Path(__file__).parent
CORPUS_DIR = TESTS_DIR / "corpus"


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """REDIS_URL when set (nothing is started), else a private embedded server."""
    external = os.environ.get("REDIS_URL")
    if external:
        yield external
        return
    with EmbeddedRedis(data_dir=tmp_path_factory.mktemp("redis")) as server:
        yield server.url


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()
