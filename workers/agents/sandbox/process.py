"""Running one command's process: output read as it comes, the whole tree ended at the end.

bubblewrap reports the host PID of the sandbox's init (``--info-fd``); at the timeout that
init is killed, which ends every process of the sandbox's PID namespace (daemons started
with ``setsid`` included), and the run returns only when they are all gone, so nothing of
the command outlives it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from workers.agents.sandbox.result import Capture

_REAP_SECONDS = 10.0


@dataclass(frozen=True)
class Finished:
    exit_code: int | None
    capture: Capture
    timed_out: bool
    seconds: float


def execute(
    argv: Callable[[int | None], list[str]],
    env: Mapping[str, str],
    *,
    cwd: Path,
    cap: int,
    limit: float,
    info: bool,
) -> Finished:
    """Run ``argv(info_fd)``; ``info_fd`` receives bubblewrap's JSON status when ``info``."""
    started = time.monotonic()
    deadline = started + limit
    read_fd, write_fd = os.pipe() if info else (-1, -1)
    try:
        process = subprocess.Popen(
            argv(write_fd if info else None),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(write_fd,) if info else (),
        )
    finally:
        if info:
            os.close(write_fd)
    init = _open_init(read_fd, deadline) if info else None
    try:
        capture = Capture(cap)
        timed_out = not _pump(process, capture, deadline)
        if timed_out:
            _kill(process, init)
        exit_code = process.wait()
        _await_end(init)
    finally:
        for fd in (read_fd, init):
            if fd is not None and fd >= 0:
                os.close(fd)
    seconds = time.monotonic() - started
    return Finished(None if timed_out else exit_code, capture, timed_out, seconds)


def _open_init(fd: int, deadline: float) -> int | None:
    """A pidfd of the sandbox's init, from bubblewrap's ``child-pid``; None if none came."""
    data = b""
    while (remaining := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], min(remaining, 1.0))
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return None
        data += chunk
        with contextlib.suppress(ValueError):
            pid = int(json.loads(data)["child-pid"])
            try:
                return os.pidfd_open(pid)
            except ProcessLookupError:
                return None
    return None


def _pump(process: subprocess.Popen[bytes], capture: Capture, deadline: float) -> bool:
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


def _kill(process: subprocess.Popen[bytes], init: int | None) -> None:
    """Kill the sandbox's init (its PID namespace goes with it), then the process group."""
    if init is not None:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(init, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=_REAP_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.stdout is not None and not process.stdout.closed:
        process.stdout.close()


def _await_end(init: int | None) -> None:
    """Return once the sandbox's init has ended, which is after the last process in its
    PID namespace has ended (the kernel kills them when the init exits)."""
    if init is None:
        return
    ready, _, _ = select.select([init], [], [], _REAP_SECONDS)
    if not ready:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(init, signal.SIGKILL)
        select.select([init], [], [], _REAP_SECONDS)
