"""Children started with the parent-death signal do not outlive a parent killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workers.processes.embedded_redis import port_open
from workers.processes.lifeline import die_with_parent

pytestmark = pytest.mark.skipif(die_with_parent() is None, reason="Linux only")

ROOT = Path(__file__).resolve().parents[2]

SPAWN_SLEEP = """
import subprocess, sys, time
from workers.processes.lifeline import die_with_parent
child = subprocess.Popen(["sleep", "60"], preexec_fn=die_with_parent() if {armed} else None)
print(child.pid, flush=True)
time.sleep(60)
"""

START_REDIS = """
import sys, time
from pathlib import Path
from workers.processes.embedded_redis import EmbeddedRedis
redis = EmbeddedRedis(data_dir=Path(sys.argv[1])).start()
print(redis.process.pid, redis.port, flush=True)
time.sleep(60)
"""


def _parent(code: str, *args: str) -> tuple[subprocess.Popen[str], list[int]]:
    parent = subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    return parent, [int(word) for word in parent.stdout.readline().split()]


def _gone(pid: int, timeout: float = 10.0) -> bool:
    """True once `pid` has exited (reaped by init, or a zombie of a dead parent)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _kill(parent: subprocess.Popen[str]) -> None:
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)


@pytest.mark.parametrize("armed", [True, False])
def test_a_child_dies_with_its_killed_parent_only_when_armed(armed: bool) -> None:
    parent, [child] = _parent(SPAWN_SLEEP.format(armed=armed))
    _kill(parent)
    try:
        assert _gone(child, timeout=5.0 if armed else 1.0) is armed
    finally:
        if not armed:
            os.kill(child, signal.SIGKILL)


def test_the_embedded_redis_stops_when_its_owner_is_killed(tmp_path: Path) -> None:
    parent, [pid, port] = _parent(START_REDIS, str(tmp_path))
    assert port_open(port)
    _kill(parent)
    assert _gone(pid)
    assert not port_open(port)
