"""When a checkout on disk is complete, and how one is removed.

A checkout counts as complete once its ready file exists (written after everything else).
A removal takes that file first, so a worker killed mid-removal leaves a checkout that the
next step makes again rather than uses half-deleted.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

READY = Path(".git") / "agentium-ready"  # in a checkout: it is complete


def remove_checkout(path: Path) -> None:
    """Remove the checkout at ``path``; anything else there (a file, a link, nothing) is
    left alone, and a checkout whose ``.git`` is a file (a worktree) loses no ready file."""
    if path.is_symlink() or not path.is_dir():
        return
    with contextlib.suppress(NotADirectoryError, FileNotFoundError):
        (path / READY).unlink()
    shutil.rmtree(path, ignore_errors=True)
