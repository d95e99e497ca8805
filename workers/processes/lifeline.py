"""Children that do not outlive the process that started them.

`agentium run` stops its children when it is stopped; when it is killed outright
(SIGKILL, the OOM killer) it cannot, and the embedded Redis, the web process and the
workers would run on, ownerless, holding ports and picking up jobs. Linux's parent-death
signal closes that gap: armed in the child between fork and exec, the kernel sends the
child a signal the moment its parent dies. Elsewhere it is a no-op.

The signal follows the *thread* that started the child, so children are started from a
thread that lives as long as they should (the main thread, in every caller here).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

Prctl = Callable[[int, int, int, int, int], int]


def _prctl() -> Prctl | None:
    """libc's prctl, looked up now: the child, between fork and exec, only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


_PRCTL = _prctl()


def die_with_parent(sig: signal.Signals = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets `sig` when this process
    dies. None where the platform has no such signal (Popen then runs nothing)."""
    if _PRCTL is None:
        return None
    prctl, parent = _PRCTL, os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm
