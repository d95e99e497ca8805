from pathlib import Path

import pytest
import redis

from workers.processes.embedded_redis import EmbeddedRedis, port_open


def test_data_survives_a_restart(tmp_path: Path) -> None:
    server = EmbeddedRedis(data_dir=tmp_path).start()
    port = server.port
    client = redis.Redis.from_url(server.url)
    client.rpush("queue", "job-1", "job-2")
    client.close()
    server.stop()
    assert not port_open(port)
    restarted = EmbeddedRedis(data_dir=tmp_path, port=port).start()
    try:
        again = redis.Redis.from_url(restarted.url)
        assert again.lrange("queue", 0, -1) == [b"job-1", b"job-2"]
        assert again.config_get("appendonly") == {"appendonly": "yes"}
        assert again.config_get("bind")["bind"] == "127.0.0.1"
        again.close()
    finally:
        restarted.stop()
    assert any(path.name.startswith("redis-") for path in tmp_path.iterdir())


def test_relative_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with EmbeddedRedis(data_dir=Path(".data")) as server:
        assert redis.Redis.from_url(server.url).ping()
    assert (tmp_path / ".data").is_dir()
