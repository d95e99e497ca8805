"""`agentium run`: Redis (embedded when REDIS_URL is unset), the web process and workers
(`agentium eval`: Redis and workers only).

Children are real processes; Ctrl-C (or SIGTERM) stops them all, and so does the
death of any one of them, so nothing runs half-started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from config.settings import Settings
from workers.processes.embedded_redis import EmbeddedRedis
from workers.processes.lifeline import die_with_parent

POLL_S = 0.2


@dataclass
class Supervisor:
    settings: Settings
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)
    redis: EmbeddedRedis | None = None
    setup: bool = False  # first-run setup: the web process only, no workers

    def start(self) -> dict[str, str]:
        env = self.start_redis()
        self.children.append(_spawn(web_command(), env))
        if not self.setup:
            self.children.append(_spawn(dispatch_command(), env))
            self.start_workers(env, self.settings.workers)
        return env

    def start_redis(self) -> dict[str, str]:
        """The embedded Redis when REDIS_URL is unset; the children's environment."""
        env = dict(os.environ)
        if self.settings.redis_url is None:
            self.redis = EmbeddedRedis(data_dir=self.settings.data_dir).start()
            env["REDIS_URL"] = self.redis.url
        return env

    def start_workers(
        self, env: dict[str, str], count: int, *options: str, log: Path | None = None
    ) -> None:
        """``count`` RQ workers (`agentium worker OPTIONS`), their output in ``log`` if
        given (appended), else on this process's."""
        for _ in range(count):
            command = [sys.executable, "-m", "workers.processes.cli", "worker", *options]
            if log is None:
                self.children.append(_spawn(command, env))
                continue
            with log.open("ab") as output:
                self.children.append(_spawn(command, env, output))

    def wait(self) -> int:
        """Block until a signal arrives or a child exits; then stop everything."""
        stop = {"signal": 0}

        def on_signal(signum: int, _frame: object) -> None:
            stop["signal"] = signum

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        while not stop["signal"]:
            exited = [child for child in self.children if child.poll() is not None]
            if exited:
                print(f"agentium: {exited[0].args!r} exited; stopping", file=sys.stderr)
                self.stop()
                return 1
            time.sleep(POLL_S)
        self.stop()
        return 0

    def stop(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for child in self.children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self.redis is not None:
            self.redis.stop()


def web_command() -> list[str]:
    """The receiver, served as `agentium web` serves it (HOST and PORT come from the
    environment), without a dispatcher thread: the dispatcher is a process of its own."""
    return [sys.executable, "-m", "workers.processes.cli", "web", "--no-dispatch"]


def dispatch_command() -> list[str]:
    return [sys.executable, "-m", "workers.processes.cli", "dispatch"]


def _spawn(
    command: Sequence[str], env: dict[str, str], output: IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    """A child that is signalled (SIGTERM) if this supervisor dies without stopping it."""
    if output is None:
        return subprocess.Popen(
            list(command), env=env, cwd=Path.cwd(), preexec_fn=die_with_parent()
        )
    return subprocess.Popen(
        list(command),
        env=env,
        cwd=Path.cwd(),
        stdout=output,
        stderr=subprocess.STDOUT,
        preexec_fn=die_with_parent(),
    )
