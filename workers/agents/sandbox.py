"""Run the worker's commands: scrubbed environment, timeout, capped output, bubblewrap.

- The environment is built from an allow-list (``SandboxSettings.env``, ``PATH`` and a
  private ``HOME``), never copied from the worker process: no ``PRIVATE_KEY``, tokens, API
  keys or ``REDIS_URL`` can leak into a command.
- Inside bubblewrap when it is installed: the whole system read-only, the checkout
  writable except its ``.git`` (hooks written there would run outside the sandbox), a
  private ``/tmp``, no network, its own PID namespace, killed with its parent. Paths in
  ``hidden`` (the caller passes the data directory, the key file and the settings file
  ``.env``, which may hold every secret of the bot) are masked. Without bubblewrap the
  result says so in its first line.
- The output (stdout and stderr together) is read incrementally: the first and last half of
  ``output_cap_bytes`` are kept and the rest is counted and dropped, so a command printing
  100 MB costs no memory.
- At the timeout the whole process group is killed.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from workers.agents.settings import SandboxSettings

SANDBOX_TMP = "/tmp"  # noqa: S108 (a private tmpfs inside the sandbox)
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "REDIS_URL")
NOT_SANDBOXED = "[not sandboxed: bubblewrap is not installed; network and files are not isolated]"


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    output: str
    total_bytes: int
    truncated: bool
    timed_out: bool
    sandboxed: bool
    seconds: float

    def describe(self) -> str:
        """The result as the model and the reviewer see it."""
        if self.timed_out:
            status = f"killed after the timeout ({self.seconds:.0f} s)"
        else:
            status = f"exit code {self.exit_code}"
        lines = [] if self.sandboxed else [NOT_SANDBOXED]
        lines.append(f"[{status}; {self.total_bytes} bytes of output]")
        if self.truncated:
            lines.append("[output cut: only its beginning and end are shown]")
        return "\n".join([*lines, self.output])


def scrubbed_env(settings: SandboxSettings, home: str) -> dict[str, str]:
    """The complete environment of a command: the allow-list, minus anything secret-like."""
    env = {"PATH": settings.path, "HOME": home, **settings.env}
    return {k: v for k, v in env.items() if not any(w in k.upper() for w in _SECRET_WORDS)}


class _Capture:
    """Keeps the head and the tail of a stream up to ``cap`` bytes in all."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.tail_cap)]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        middle = b"\n[...]\n" if self.truncated else b""
        return (bytes(self.head) + middle + bytes(self.tail)).decode("utf-8", "replace")


class Sandbox:
    """Runs shell commands in a checkout. ``bwrap`` is the bubblewrap binary, or None."""

    def __init__(
        self,
        settings: SandboxSettings,
        bwrap: str | None,
        *,
        hidden: Sequence[Path] = (),
    ) -> None:
        self.settings = settings
        self.bwrap = bwrap
        self.hidden = tuple(hidden)

    @property
    def isolated(self) -> bool:
        return self.bwrap is not None

    def argv(self, command: str, checkout: Path) -> list[str]:
        shell = ["/bin/sh", "-c", command]
        if self.bwrap is None:
            return shell
        root = str(checkout)
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in self.hidden:
            if path.is_dir():
                args += ["--tmpfs", str(path)]
            elif path.exists():
                args += ["--ro-bind", "/dev/null", str(path)]
        args += ["--tmpfs", SANDBOX_TMP, "--bind", root, root]
        if (checkout / ".git").exists():
            args += ["--ro-bind", f"{root}/.git", f"{root}/.git"]
        args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        args += ["--die-with-parent", "--new-session", "--chdir", root, "--"]
        return args + shell

    def run(self, command: str, checkout: Path, *, timeout: float | None = None) -> CommandResult:
        limit = timeout if timeout is not None else self.settings.timeout_seconds
        if self.isolated:
            return self._run(command, checkout, limit, SANDBOX_TMP)
        with tempfile.TemporaryDirectory(prefix="agentium-home-") as home:
            return self._run(command, checkout, limit, home)

    def _run(self, command: str, checkout: Path, limit: float, home: str) -> CommandResult:
        started = time.monotonic()
        process = subprocess.Popen(
            self.argv(command, checkout),
            cwd=checkout,
            env=scrubbed_env(self.settings, home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        capture = _Capture(self.settings.output_cap_bytes)
        timed_out = not _pump(process, capture, started + limit)
        if timed_out:
            _kill_group(process)
        exit_code = process.wait()
        return CommandResult(
            exit_code=None if timed_out else exit_code,
            output=capture.text(),
            total_bytes=capture.total,
            truncated=capture.truncated,
            timed_out=timed_out,
            sandboxed=self.isolated,
            seconds=time.monotonic() - started,
        )


def _pump(process: subprocess.Popen[bytes], capture: _Capture, deadline: float) -> bool:
    """Read the output until it closes (True) or the deadline passes (False)."""
    stream = process.stdout
    assert stream is not None
    fd = stream.fileno()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not selector.select(timeout=min(remaining, 1.0)):
                continue
            chunk = os.read(fd, 65_536)
            if not chunk:
                stream.close()
                return _wait_exit(process, deadline)
            capture.feed(chunk)


def _wait_exit(process: subprocess.Popen[bytes], deadline: float) -> bool:
    try:
        process.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.stdout is not None and not process.stdout.closed:
        process.stdout.close()
