"""Lending a root worker's writable trees to the sandbox's host user for one command.

When the worker runs as root its commands run as ``run_as`` (never as root), which must own
what it may write: before a command the trees' contents (the checkout's ``.git`` excepted,
which stays root's and read-only) are handed to that user and each tree's top directory,
which stays root's (git refuses a work tree whose top another user owns, so a worker
killed mid-command leaves a checkout git still accepts), becomes writable by its group.
After the command, when none of its processes is left, everything it owns there is handed
back (which also clears any set-user-ID bit it set) and the top directories' group and
mode are restored. Symbolic links are never followed nor changed, and a file with several
hard links is not lent.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Owner:
    uid: int
    gid: int


def walk(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every directory and regular file under ``root`` (not itself), not following
    symbolic links, without the top-level ``.git``."""
    pending = [str(root)]
    skip = str(root / ".git")
    while pending:
        with os.scandir(pending.pop()) as scan:
            for entry in scan:
                if entry.path == skip or entry.is_symlink():
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    pending.append(entry.path)
                elif not stat.S_ISREG(info.st_mode):
                    continue
                yield entry.path, info


def hand_over(root: Path, source: Owner, target: Owner, *, lend: bool) -> None:
    """Give what ``source`` owns under ``root`` to ``target``; when lending, not files
    with several links (a hard link to a file elsewhere must not change hands)."""
    for path, info in walk(root):
        if info.st_uid != source.uid:
            continue
        if lend and not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
            continue
        os.chown(path, target.uid, target.gid, follow_symlinks=False)


@contextlib.contextmanager
def lent(roots: Sequence[Path], worker: Owner, user: Owner) -> Iterator[None]:
    """The trees belong to ``user`` (their tops writable by its group) inside the block."""
    tops = {root: os.lstat(root) for root in roots}
    for root in roots:
        hand_over(root, worker, user, lend=True)
        os.chown(root, worker.uid, user.gid)  # the group is the sandbox user's alone
        root.chmod(stat.S_IMODE(tops[root].st_mode) | stat.S_IRWXG)
    try:
        yield
    finally:
        for root, top in tops.items():
            hand_over(root, user, worker, lend=False)
            os.chown(root, top.st_uid, top.st_gid)
            root.chmod(stat.S_IMODE(top.st_mode))
