"""The bubblewrap command line of one run, for a worker running as root or not.

Inside, a command always runs in a new user namespace as uid/gid 65534, without any
capability (``--cap-drop ALL``, bounding set empty, no new privileges), unable to make
further user namespaces (``--disable-userns``), in its own PID, IPC, UTS and cgroup
namespaces and, unless the run asks for it, without network; with limits that it cannot
raise (``prlimit`` inside the namespace, so the process limit counts only its processes).

- The worker is not root: one bubblewrap, as the worker's user.
- The worker is root: a root bubblewrap builds the mounts (it can reach a checkout under a
  directory only root may enter) and keeps only CAP_SETUID/CAP_SETGID, for ``setpriv`` to
  become the unprivileged host user ``SandboxSettings.run_as``; that user then runs the
  confining bubblewrap over the tree. No code of the command ever runs as host root.

Flags that this bubblewrap lacks (``--disable-userns`` before 0.8, ``--size`` and
``--perms`` before 0.5) are left out; :func:`Bubblewrap.missing` names them.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from workers.agents.settings import HostIdentity, SandboxLimits

SANDBOX_ID = "65534"  # the uid/gid inside; unmapped host owners show as 65534 too
OPTIONAL = ("--disable-userns", "--size", "--perms", "--info-fd")
_NAMESPACES = ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")


@dataclass(frozen=True)
class Bubblewrap:
    path: str
    features: frozenset[str]
    prlimit: str
    setpriv: str | None

    @classmethod
    def find(cls) -> Bubblewrap | None:
        """The installed bubblewrap with its optional flags, or None when a tool is missing."""
        path, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
        if path is None or prlimit is None:
            return None
        return cls(path, _features(path), prlimit, shutil.which("setpriv"))

    def has(self, flag: str) -> bool:
        return flag in self.features

    def missing(self) -> list[str]:
        return [flag for flag in OPTIONAL if flag not in self.features]


def _features(path: str) -> frozenset[str]:
    done = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10, check=False)
    text = done.stdout + done.stderr
    return frozenset(flag for flag in OPTIONAL if f"{flag} " in text)


def limit_args(prlimit: str, limits: SandboxLimits) -> list[str]:
    return [
        prlimit,
        f"--nproc={limits.processes}",
        f"--data={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def confine_args(bwrap: Bubblewrap) -> list[str]:
    """The user namespace and the capabilities of the command."""
    args = ["--unshare-user", "--uid", SANDBOX_ID, "--gid", SANDBOX_ID]
    if bwrap.has("--disable-userns"):
        args.append("--disable-userns")
    return [*args, "--cap-drop", "ALL"]


def namespace_args(network: bool) -> list[str]:
    return [*_NAMESPACES, *([] if network else ["--unshare-net"])]


def info_args(bwrap: Bubblewrap, fd: int | None) -> list[str]:
    return ["--info-fd", str(fd)] if fd is not None and bwrap.has("--info-fd") else []


@dataclass(frozen=True)
class Invocation:
    """One run's pieces: the mounts, where it starts, what it runs, how it is limited."""

    mounts: list[str]
    chdir: Path
    command: list[str]
    network: bool
    info_fd: int | None


def unprivileged_argv(bwrap: Bubblewrap, run: Invocation) -> list[str]:
    return [
        bwrap.path,
        *confine_args(bwrap),
        *namespace_args(run.network),
        "--die-with-parent",
        "--new-session",
        *run.mounts,
        "--chdir",
        str(run.chdir),
        *info_args(bwrap, run.info_fd),
        "--",
        *run.command,
    ]


def root_argv(bwrap: Bubblewrap, run: Invocation, user: HostIdentity) -> list[str]:
    """Root builds the tree; ``user`` runs the confining bubblewrap inside it."""
    assert bwrap.setpriv is not None
    become = [
        bwrap.setpriv,
        f"--reuid={user.uid}",
        f"--regid={user.gid}",
        "--clear-groups",
        "--no-new-privs",
        "--",
    ]
    inner = [
        bwrap.path,
        *confine_args(bwrap),
        *("--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--bind", "/proc", "/proc"),
        "--die-with-parent",
        "--chdir",
        str(run.chdir),
        "--",
    ]
    keep = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [
        bwrap.path,
        *namespace_args(run.network),
        "--die-with-parent",
        "--new-session",
        *run.mounts,
        *keep,
        "--chdir",
        "/",
        *info_args(bwrap, run.info_fd),
        "--",
        *become,
        *inner,
        *run.command,
    ]
