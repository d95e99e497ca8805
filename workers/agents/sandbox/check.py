"""The sandbox a worker may use, or a clear refusal: there is no silent unsandboxed fallback.

:func:`open_sandbox` finds bubblewrap (and util-linux's ``prlimit``, and ``setpriv`` when
the worker is root), then runs one real command through it (once per process) and checks
that it ran without capabilities and could write its checkout. When any of that fails it
raises :class:`SandboxUnavailable`, whose message says how to install what is missing.
Only ``unsafe=True`` (the loudly named ``AGENTIUM_UNSAFE_NO_SANDBOX`` setting, for local
experiments) gives a Sandbox without bubblewrap, and its every result says so.
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from workers.agents.sandbox.bwrap import Bubblewrap
from workers.agents.sandbox.core import Sandbox
from workers.agents.settings import HostIdentity, SandboxSettings

log = logging.getLogger("agentium.sandbox")

INSTALL = (
    "install bubblewrap and util-linux (Debian/Ubuntu: `apt-get install bubblewrap "
    "util-linux`), allow unprivileged user namespaces (`sysctl user.max_user_namespaces` "
    "above 0), or set AGENTIUM_UNSAFE_NO_SANDBOX=1 for a local experiment only"
)
_NAMESPACES = ("user", "mnt", "pid", "net")
_PROBE = "echo ok > .agentium-probe && grep '^CapEff' /proc/self/status && readlink " + " ".join(
    f"/proc/self/ns/{name}" for name in _NAMESPACES
)
_NO_CAPS = "0000000000000000"


class SandboxUnavailable(RuntimeError):
    """Agents' commands cannot be confined here; the message says what to install."""


def open_sandbox(
    settings: SandboxSettings,
    *,
    unsafe: bool = False,
    hidden: Iterable[Path] = (),
    readable: Iterable[Path] = (),
) -> Sandbox:
    """The worker's sandbox; raises SandboxUnavailable unless bubblewrap works here."""
    if unsafe:
        log.warning("AGENTIUM_UNSAFE_NO_SANDBOX is set: agents' commands run unconfined")
        return Sandbox(settings, None, hidden=hidden, readable=readable)
    return Sandbox(settings, working_bubblewrap(settings), hidden=hidden, readable=readable)


def working_bubblewrap(settings: SandboxSettings) -> Bubblewrap:
    bwrap = Bubblewrap.find()
    if bwrap is None:
        raise SandboxUnavailable(f"bubblewrap (bwrap) or prlimit is not installed: {INSTALL}")
    if os.geteuid() == 0 and bwrap.setpriv is None:
        raise SandboxUnavailable(f"setpriv is not installed: {INSTALL}")
    problem = self_test(bwrap, settings.run_as)
    if problem is not None:
        raise SandboxUnavailable(f"bubblewrap ({bwrap.path}) fails here: {problem}; {INSTALL}")
    if bwrap.missing():
        log.warning("bubblewrap lacks %s: older than 0.8", ", ".join(bwrap.missing()))
    return bwrap


@functools.cache
def self_test(bwrap: Bubblewrap, run_as: HostIdentity) -> str | None:
    """None when a real command ran confined (no capabilities, its own user, mount, PID and
    network namespaces) and wrote its checkout; otherwise what went wrong, in one line.
    Cached: it runs once per process."""
    settings = SandboxSettings(timeout_seconds=30, output_cap_bytes=4096, run_as=run_as)
    with tempfile.TemporaryDirectory(prefix="agentium-selftest-") as tmp:
        result = Sandbox(settings, bwrap).run(_PROBE, Path(tmp))
        wrote = (Path(tmp) / ".agentium-probe").is_file()
    lines = result.output.strip().splitlines()
    if result.exit_code != 0:
        return (lines[-1] if lines else f"exit code {result.exit_code}")[:300]
    if not wrote:
        return "a command could not write its checkout"
    if not any(line.startswith("CapEff") and line.endswith(_NO_CAPS) for line in lines):
        return "a command kept capabilities"
    host = {str(Path(f"/proc/self/ns/{name}").readlink()) for name in _NAMESPACES}
    if host & set(lines):
        return "a command shared the worker's namespaces"
    return None
