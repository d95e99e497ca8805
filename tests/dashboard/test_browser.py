"""The dashboard as a person sees it: the real web process, headless Chromium.

Needs Debian's ``chromium`` (``make test`` installs it); skipped with the reason otherwise.
The screenshots are kept in ``tests/artifacts/``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.dashboard.stored import HOSTILE_TITLE, finished, store_examples
from tests.processes.test_processes import ROOT, base_env, wait_for
from workers.processes.embedded_redis import free_port, port_open

pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = ROOT / "tests" / "artifacts"
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars",
)  # fmt: skip


@pytest.fixture
def web(tmp_path: Path, redis_url: str, redis_client: redis.Redis) -> Iterator[str]:
    """``agentium web`` on a free port, against the tests' Redis; no DASHBOARD_TOKEN."""
    port = free_port()
    env = base_env(tmp_path, port) | {"REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
    env.pop("DASHBOARD_TOKEN", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "workers.processes.cli", "web"], cwd=tmp_path, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(lambda: port_open(port))
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=15)


def chromium(tmp_path: Path, url: str, *extra: str) -> str:
    """The page's DOM after load (``--dump-dom``), or Chromium's output with ``--screenshot``."""
    assert CHROMIUM is not None
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, url]
    result = subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def dump(tmp_path: Path, url: str, *extra: str) -> str:
    return chromium(tmp_path, url, "--dump-dom", *extra)


def screenshot(tmp_path: Path, url: str, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = ARTIFACTS / name
    target.unlink(missing_ok=True)
    chromium(tmp_path, url, f"--screenshot={target}", "--window-size=1280,900")
    assert target.stat().st_size > 10_000  # a rendered page, not a blank one
    return target


def text(dom: str) -> str:
    """Roughly what a person reads: tags dropped, entities of the test data decoded."""
    plain = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
    plain = re.sub(r"<[^>]+>", " ", plain)
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&amp;", "&")):
        plain = plain.replace(entity, char)
    return re.sub(r"\s+", " ", plain)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it)")
def test_a_person_reads_the_list_and_follows_a_task(
    tmp_path: Path, web: str, redis_client: redis.Redis
) -> None:
    store_examples(redis_client)
    listing = dump(tmp_path, f"{web}/tasks")
    seen = text(listing)
    assert "Tasks" in seen and "3 tasks, newest first" in seen
    row = re.search(
        r'<tr class="task[^"]*" data-task="octo-org/widgets#22">(.*?)</tr>', listing, re.S
    )
    assert row, listing[:3000]
    cells = text(row.group(1))
    for shown in (
        "octo-org/widgets",
        "#22",
        "Add a --verbose flag",
        "COMPLETE",
        "NOMERGE",
        "SIMPLE",
    ):
        assert shown in cells, (shown, cells)
    # the hostile title is shown as text; no script ran and no <script> element came of it
    assert HOSTILE_TITLE in seen and "<script>alert" not in listing
    link = re.search(r'<a class="task-link" href="([^"]+)">#22</a>', row.group(1))
    assert link and link.group(1) == "/tasks/octo-org/widgets/22"
    screenshot(tmp_path, f"{web}/tasks", "dashboard.png")

    page = dump(tmp_path, f"{web}{link.group(1)}")
    seen = text(page)
    assert "octo-org/widgets#22" in seen and "Timeline" in seen
    steps = re.findall(r'<li class="step role-(\w+)">', page)
    assert steps == [step.role.value for step in finished("issue-22-simple").history]
    for shown in ("Worker: creates plan", "Judge verdict: ITERATE", "max_iterations", "#150"):
        assert shown in seen, shown
    screenshot(tmp_path, f"{web}{link.group(1)}", "dashboard-task.png")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it)")
def test_the_list_refreshes_itself(tmp_path: Path, web: str, redis_client: redis.Redis) -> None:
    store_examples(redis_client)
    # Chromium's virtual time runs the page's 5 s timer; the fetched rows replace the body.
    dom = dump(tmp_path, f"{web}/tasks", "--virtual-time-budget=8000")
    assert re.search(r'id="refreshed"[^>]*>updated ', dom), dom[:2000]
    assert 'data-task="octo-org/gadgets#7"' in dom
