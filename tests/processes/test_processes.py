"""The real processes, started the way `make run` starts them, on free ports."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.e2e.harness import descendants
from tests.fakes.keys import app_key_pair
from tests.support import SECRET, delivery_headers, encode, payload
from workers.processes.embedded_redis import EmbeddedRedis, free_port, port_open
from workers.tasks.record import task_key
from workers.tasks.store import TaskStore

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parent.parent.parent


def wait_for(predicate: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def base_env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(WEBHOOK_SECRET=SECRET, PORT=str(port), WORKERS="1", DATA_DIR=str(tmp_path / "data"))
    return env


@pytest.fixture
def running_bot(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "workers.processes.cli", "run"],
        cwd=tmp_path, env=base_env(tmp_path, port) | {"PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    banner = process.stdout.readline()
    found = re.search(r"Redis at (redis://\S+)", banner)
    assert found, banner
    wait_for(lambda: port_open(port))
    yield process, port, found.group(1)
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def test_labeled_issue_becomes_a_stored_task(
    running_bot: tuple[subprocess.Popen[str], int, str],
) -> None:
    process, port, redis_url = running_bot
    data = payload("issues", "labeled")
    data["label"]["name"] = "agentium"
    data["installation"] = {"id": 7}
    body = encode(data)
    url = f"http://127.0.0.1:{port}/api/github/webhooks"
    response = httpx.post(url, content=body, headers=delivery_headers("issues", body))
    assert response.status_code == 202
    assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    store = TaskStore(redis.Redis.from_url(redis_url))
    key = task_key("Codertocat/Hello-World", 1)
    wait_for(lambda: store.get(key) is not None)
    record = store.get(key)
    assert record is not None and record.installation_id == 7
    # Ctrl-C stops web, worker and the embedded Redis.
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0
    assert not port_open(port)
    assert not port_open(int(redis_url.rsplit(":", 1)[1].split("/")[0]))


def test_healthz_follows_redis(tmp_path: Path) -> None:
    server = EmbeddedRedis(data_dir=tmp_path / "redis").start()
    port = free_port()
    env = base_env(tmp_path, port) | {"REDIS_URL": server.url, "PYTHONPATH": str(ROOT)}
    web = subprocess.Popen(
        [sys.executable, "-m", "workers.processes.cli", "web"], cwd=tmp_path, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: port_open(port))
        health = f"http://127.0.0.1:{port}/healthz"
        assert httpx.get(health).status_code == 200
        server.stop()
        assert httpx.get(health, timeout=10).status_code == 503
        body = encode(payload("issues", "labeled"))
        hook = f"http://127.0.0.1:{port}/api/github/webhooks"
        assert (
            httpx.post(hook, content=body, headers=delivery_headers("issues", body)).status_code
            == 503
        )
    finally:
        web.terminate()
        web.wait(timeout=15)
        server.stop()


def test_run_refuses_to_start_without_a_webhook_secret(tmp_path: Path) -> None:
    # With an APP_ID; with neither, `run` serves the first-run setup (tests/setup/).
    env = base_env(tmp_path, free_port()) | {"PYTHONPATH": str(ROOT), "APP_ID": "4242"}
    del env["WEBHOOK_SECRET"]
    result = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", "run"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2
    assert "WEBHOOK_SECRET" in result.stderr


def test_bad_setting_is_named(tmp_path: Path) -> None:
    env = base_env(tmp_path, free_port()) | {"PYTHONPATH": str(ROOT), "PORT": "eighty"}
    result = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", "run"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2
    assert "PORT" in result.stderr


def test_an_app_without_its_key_is_named_before_anything_starts(tmp_path: Path) -> None:
    env = base_env(tmp_path, free_port()) | {"PYTHONPATH": str(ROOT), "APP_ID": "7"}
    result = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", "run"], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2
    assert "PRIVATE_KEY" in result.stderr
    assert "APP_SLUG" not in result.stderr  # asked of GitHub when unset
    assert "Traceback" not in result.stderr


def test_a_worker_that_cannot_ask_github_for_the_slug_says_so(
    tmp_path: Path, redis_url: str
) -> None:
    """APP_SLUG unset and GitHub unreachable: one clear line, exit 2, no traceback."""
    env = base_env(tmp_path, free_port()) | {
        "PYTHONPATH": str(ROOT),
        "APP_ID": "7",
        "PRIVATE_KEY": app_key_pair().private_pem,
        "REDIS_URL": redis_url,
        "GITHUB_API_URL": f"http://127.0.0.1:{free_port()}",  # nothing listens
        "QUEUE_NAME": "agentium-slug-test",
    }
    env.pop("APP_SLUG", None)
    result = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", "worker", "--burst"], cwd=tmp_path,
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "APP_SLUG is not set and GitHub could not be asked for it" in result.stderr
    assert "set APP_SLUG" in result.stderr and "Traceback" not in result.stderr


def test_a_killed_run_leaves_nothing_running(
    running_bot: tuple[subprocess.Popen[str], int, str],
) -> None:
    """SIGKILL gives `agentium run` no chance to stop its children: the kernel's
    parent-death signal does (workers/processes/lifeline.py)."""
    process, port, redis_url = running_bot
    children = descendants(process.pid)  # Redis, web, dispatcher, worker
    assert len(children) >= 4
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    redis_port = int(redis_url.rsplit(":", 1)[1].split("/")[0])
    wait_for(lambda: not port_open(port) and not port_open(redis_port), timeout=30)
    wait_for(lambda: not any(running(pid) for pid in children), timeout=30)


def running(pid: int) -> bool:
    """Alive: not reaped and not a zombie (which a container's init may never reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
