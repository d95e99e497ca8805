"""The file system a command sees: only what it needs, built on an empty root.

System directories (``SandboxSettings.system_paths``) are bound read-only, ``/dev`` and
``/proc`` are new, ``/tmp`` is a private tmpfs with a size cap, the checkout and the run's
``writable`` paths are bound read-write (the checkout's ``.git`` read-only) and its
``readable`` paths read-only. Nothing else of the host exists inside: no home
directories, no ``/run`` (sockets), no data directory, no other task's checkout. The root
itself is read-only. A ``hidden`` path that lies inside something bound is masked.

Binds are made after the tmpfs on ``/tmp``, parents first, so a checkout or an
environment under ``/tmp`` is visible.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

SANDBOX_TMP = "/tmp"  # noqa: S108 (a private tmpfs inside the sandbox)
_NEVER_BOUND = ("/proc", "/dev", "/sys")


class BindError(ValueError):
    """A path that cannot be bound into the sandbox; the message says why."""


def checked(path: Path | str, system: Sequence[str]) -> Path:
    """``path`` resolved, when it may be bound: absolute, existing, not ``/``, not a system
    directory or ``/tmp`` or one of their parents, not under ``/proc``, ``/dev`` or ``/sys``."""
    given = Path(path)
    if not given.is_absolute():
        raise BindError(f"{given}: a bind must be an absolute path")
    try:
        resolved = given.resolve(strict=True)
    except (OSError, RuntimeError):
        raise BindError(f"{given}: does not exist") from None
    if resolved == Path("/"):
        raise BindError("/ cannot be bound into the sandbox")
    if any(Path(kept).is_relative_to(resolved) for kept in (*system, SANDBOX_TMP)):
        raise BindError(f"{resolved}: a system directory or /tmp cannot be bound")
    if any(resolved.is_relative_to(root) for root in _NEVER_BOUND):
        raise BindError(f"{resolved}: nothing under /proc, /dev or /sys can be bound")
    return resolved


def resolver_files(system: Sequence[str], conf: Path = Path("/etc/resolv.conf")) -> list[Path]:
    """For a run with the network: the resolver's file when ``/etc/resolv.conf`` links out
    of the system directories (systemd-resolved puts it under ``/run``, which is absent)."""
    target = conf.resolve()
    if not target.is_file() or any(target.is_relative_to(p) for p in system):
        return []
    return [target]


@dataclass(frozen=True)
class Binds:
    """What one run binds, all paths checked. ``writable[0]`` is the command's directory."""

    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()


@dataclass(frozen=True)
class _Op:
    path: Path
    args: tuple[str, ...]
    order: int  # at one depth: binds first, then masks


def system_args(system: Sequence[str]) -> list[str]:
    """Read-only binds of the system directories; symlinks (``/bin -> usr/bin``) as links."""
    args: list[str] = []
    for name in system:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args


def tmp_args(size: int | None) -> list[str]:
    sized = ["--size", str(size)] if size is not None else []
    return [*sized, "--perms", "1777", "--tmpfs", SANDBOX_TMP]


def git_dir(checkout: Path) -> Path | None:
    """The checkout's ``.git`` (directory, or file of a worktree), bound read-only."""
    dot_git = checkout / ".git"
    if dot_git.is_symlink():
        raise BindError(f"{dot_git} is a symlink; refusing to run commands in this checkout")
    return dot_git if dot_git.exists() else None


def _bind_ops(binds: Binds) -> list[_Op]:
    ops = [_Op(p, ("--bind", str(p), str(p)), 0) for p in binds.writable]
    ops += [_Op(p, ("--ro-bind", str(p), str(p)), 0) for p in binds.readable]
    for checkout in binds.writable[:1]:
        dot_git = git_dir(checkout)
        if dot_git is not None:
            ops.append(_Op(dot_git, ("--ro-bind", str(dot_git), str(dot_git)), 0))
    return ops


def _mask_ops(hidden: Iterable[Path], bound: Sequence[Path]) -> list[_Op]:
    """Masks for hidden paths inside a bound tree; the others are absent anyway."""
    ops = []
    for path in hidden:
        if not path.exists() or not any(path.is_relative_to(b) and path != b for b in bound):
            continue
        if path.is_dir():
            ops.append(_Op(path, ("--tmpfs", str(path), "--remount-ro", str(path)), 1))
        else:
            ops.append(_Op(path, ("--ro-bind", "/dev/null", str(path)), 1))
    return ops


def _parents(path: Path, made: set[Path], perms: bool) -> list[str]:
    """Create the parents of a mount point not made yet as traversable directories (one
    that exists in a bound tree is left as it is)."""
    args: list[str] = []
    for parent in reversed(path.parents[:-1]):
        if parent not in made:
            made.add(parent)
            args += [*(["--perms", "0755"] if perms else []), "--dir", str(parent)]
    return args


def mount_args(system: Sequence[str], binds: Binds, tmp_size: int | None, perms: bool) -> list[str]:
    """Every mount of one run, in an order that puts parents first; the root read-only."""
    args = [*system_args(system), "--dev", "/dev", "--proc", "/proc", *tmp_args(tmp_size)]
    binds_ops = _bind_ops(binds)
    bound = [Path(p) for p in system if Path(p).is_dir() and not Path(p).is_symlink()]
    bound += [op.path for op in binds_ops]
    made = {*bound, *map(Path, system), Path(SANDBOX_TMP)}
    ops = binds_ops + _mask_ops(binds.hidden, bound)
    for op in sorted(ops, key=lambda op: (len(op.path.parts), op.order, str(op.path))):
        args += [*_parents(op.path, made, perms), *op.args]
    return [*args, "--remount-ro", "/"]
