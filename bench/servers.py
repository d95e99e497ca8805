"""The processes `make bench` measures, started as `make run` starts them, pinned to CPUs.

- Redis: REDIS_URL as is, or a fresh embedded one (AOF on, as `make run` has it).
- The receiver: `python -m workers.processes.cli web --no-dispatch` and its dispatcher process,
  `python -m workers.processes.cli dispatch`, exactly what `agentium run` starts.
- The ceiling: `python -m bench.bare`, a bare Starlette app served with the same uvicorn
  settings (bot/serve.py) on the same CPU.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from workers.processes.embedded_redis import EmbeddedRedis, free_port
from workers.processes.lifeline import die_with_parent

HOST = "127.0.0.1"
HEALTH_TIMEOUT_S = 30.0
POLL_S = 0.1
WEB_COMMAND = (sys.executable, "-m", "workers.processes.cli", "web", "--no-dispatch")
DISPATCH_COMMAND = (sys.executable, "-m", "workers.processes.cli", "dispatch")
BARE_COMMAND = (sys.executable, "-m", "bench.bare")


class BenchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Cpus:
    """Where each side runs; None when there is a single CPU (nothing is pinned)."""

    server: int | None
    load: int | None

    @classmethod
    def choose(cls) -> Cpus:
        available = sorted(os.sched_getaffinity(0))
        if len(available) < 2:
            return cls(None, None)
        return cls(available[0], available[1])

    def describe(self) -> str:
        if self.server is None:
            return "single CPU: nothing pinned"
        return (
            f"web process and bare app pinned to CPU {self.server}; load generator, Redis "
            f"and the dispatcher process to CPU {self.load}"
        )


def pin(pid: int, cpu: int | None) -> None:
    """Pin every thread of a process (threads it starts later inherit it)."""
    if cpu is None:
        return
    for task in (Path("/proc") / str(pid) / "task").iterdir():
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(int(task.name), {cpu})


@contextlib.contextmanager
def redis_server(external: str | None, data_dir: Path, cpu: int | None) -> Iterator[str]:
    """The Redis to use: REDIS_URL as is, or a fresh embedded one (pinned to `cpu`)."""
    if external:
        yield external
        return
    shutil.rmtree(data_dir, ignore_errors=True)
    with EmbeddedRedis(data_dir=data_dir) as server:
        assert server.process is not None
        pin(server.process.pid, cpu)
        yield server.url


@contextlib.contextmanager
def process(
    command: Sequence[str], env: dict[str, str], log_path: Path, cpu: int | None
) -> Iterator[subprocess.Popen[bytes]]:
    """A child process with its output in `log_path`, pinned to `cpu`, stopped on exit."""
    with log_path.open("wb") as log:
        child = subprocess.Popen(
            list(command),
            env={**os.environ, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent(),  # an interrupted bench leaves no server behind
        )
    try:
        pin(child.pid, cpu)
        yield child
    finally:
        stop(child)


@dataclass(frozen=True)
class Server:
    port: int
    pid: int

    def cpu_s(self) -> float:
        """CPU time the process has used so far (user + system, every thread)."""
        return cpu_s(self.pid)


def cpu_s(pid: int) -> float:
    fields = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def http_server(
    command: Sequence[str], env: dict[str, str], log_path: Path, cpu: int | None
) -> Iterator[Server]:
    """A web process on a free port, yielded once its /healthz answers 200."""
    port = free_port()
    with process(command, {**env, "HOST": HOST, "PORT": str(port)}, log_path, cpu) as child:
        _wait_healthy(child, port, log_path)
        pin(child.pid, cpu)  # again: uvicorn's threads started after the first pinning
        yield Server(port, child.pid)


def _wait_healthy(child: subprocess.Popen[bytes], port: int, log_path: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise BenchError(f"{child.args!r} exited with {child.returncode}; see {log_path}")
        if _health_status(port) == 200:
            return
        time.sleep(POLL_S)
    raise BenchError(f"{child.args!r} did not answer /healthz in time; see {log_path}")


def _health_status(port: int) -> int | None:
    connection = http.client.HTTPConnection(HOST, port, timeout=1.0)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except OSError:
        return None
    finally:
        connection.close()


def stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.terminate()
    try:
        child.wait(timeout=15)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def log_errors(log_path: Path) -> int:
    """Error lines a process logged (e.g. Redis failures, dispatcher steps)."""
    with log_path.open(encoding="utf-8", errors="replace") as log:
        return sum('"level":"error"' in line.replace(" ", "") for line in log)
