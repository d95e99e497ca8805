"""Lending a root worker's writable trees to the sandbox's host user for one command.

When the worker runs as root its commands run as ``run_as`` (never as root), which must own
what it may write: before a command the checkout (its ``.git`` excepted, which stays
root's and read-only) and the run's other writable trees are handed to that user; after
the command, when none of its processes is left, everything it owns there is handed back
(which also clears any set-user-ID bit it set). Symbolic links are never followed nor
changed, and a file with several hard links is not lent.
"""

from __future__ import annotations

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
    """Every directory and regular file under ``root`` (itself included), not following
    symbolic links, without the top-level ``.git``."""
    top = os.lstat(root)
    yield str(root), top
    pending = [str(root)] if stat.S_ISDIR(top.st_mode) else []
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


def hand_over(roots: Sequence[Path], source: Owner, target: Owner, *, lend: bool) -> None:
    """Give what ``source`` owns under ``roots`` to ``target``; when lending, not files
    with several links (a hard link to a file elsewhere must not change hands)."""
    for root in roots:
        for path, info in walk(root):
            if info.st_uid != source.uid:
                continue
            if lend and not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
                continue
            os.chown(path, target.uid, target.gid, follow_symlinks=False)
