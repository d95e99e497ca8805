"""`agentium run` without an App: the setup page; after registration, a restart serves the bot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fakes import github_manifest
from tests.fakes.github import FakeGitHub
from tests.fakes.keys import app_key_pair
from tests.processes.test_processes import wait_for
from tests.setup.pages import register_form
from tests.support import delivery_headers, encode, payload
from workers.github.clock import SystemClock
from workers.processes.embedded_redis import free_port, port_open

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parent.parent.parent
UNSET = ("APP_ID", "WEBHOOK_SECRET", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "REDIS_URL", "PUBLIC_URL")


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    keys = app_key_pair()
    with FakeGitHub(
        app_id=4242, public_key_pem=keys.public_pem, clock=SystemClock(), root=tmp_path
    ) as fake:
        yield fake


def start(workdir: Path, port: int, github: FakeGitHub) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in UNSET and not k.startswith("GITHUB_")}
    env |= {
        "PYTHONPATH": str(ROOT), "PORT": str(port), "WORKERS": "1",
        "DATA_DIR": str(workdir / "data"), "GITHUB_API_URL": github.url,
        "GITHUB_WEB_URL": github.url,
    }  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "workers.processes.cli", "run"], cwd=workdir, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    wait_for(lambda: port_open(port))
    return process


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def test_setup_then_restart_serves_the_bot(tmp_path: Path, github: FakeGitHub) -> None:
    workdir, port = tmp_path / "bot", free_port()
    workdir.mkdir()
    base = f"http://127.0.0.1:{port}"
    process = start(workdir, port, github)
    try:
        assert process.stdout is not None
        assert f"{base}/" in process.stdout.readline()
        form = register_form(httpx.get(f"{base}/").text)
        done = httpx.get(github_manifest.confirm(github, form.manifest, form.state))
        assert done.status_code == 200, done.text
        assert "/installations/new" in done.text
    finally:
        stop(process)
    env_text = (workdir / ".env").read_text()
    assert "APP_ID='4242'" in env_text
    process = start(workdir, port, github)
    try:
        wait_for(lambda: httpx.get(f"{base}/healthz").status_code == 200)
        secret = next(
            line.split("=", 1)[1].strip("'")
            for line in env_text.splitlines()
            if line.startswith("WEBHOOK_SECRET=")
        )
        body = encode(payload("issues", "labeled"))
        headers = delivery_headers("issues", body, secret=secret)
        assert (
            httpx.post(f"{base}/api/github/webhooks", content=body, headers=headers).status_code
            == 202
        )
        bad = delivery_headers("issues", body, secret="not-the-secret")
        assert (
            httpx.post(f"{base}/api/github/webhooks", content=body, headers=bad).status_code == 401
        )
    finally:
        stop(process)
