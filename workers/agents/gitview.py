"""What the runner needs from git: HEAD, whether the checkout changed, a commit, a diff.

:class:`Checkout` is the seam (the controller side may pass its own implementation from
``workers/gitops``); :class:`LocalGit` shells out to git on the checkout. Every command runs
with hooks disabled, so nothing the agent wrote into the tree runs outside the sandbox.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Protocol

_SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


class Checkout(Protocol):
    def head(self) -> str: ...

    def is_dirty(self) -> bool: ...

    def commit_all(self, message: str) -> str | None:
        """Commit every change (new files included); the new SHA, None if nothing changed."""
        ...

    def diff(self, base: str) -> str:
        """The diff of the working tree against ``base``."""
        ...

    def changed_files(self, base: str, head: str) -> list[str]: ...


class GitError(Exception):
    """A git command failed; the message is git's own (no credentials are passed)."""


class LocalGit:
    def __init__(self, root: Path, *, author: str, email: str) -> None:
        self.root = root
        self.identity = ("-c", f"user.name={author}", "-c", f"user.email={email}")

    def _git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *_SAFE, *self.identity, *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )
        if done.returncode != 0:
            raise GitError(f"git {args[0]} failed: {done.stderr.strip()[:500]}")
        return done.stdout

    def head(self) -> str:
        return self._git("rev-parse", "HEAD").strip()

    def is_dirty(self) -> bool:
        return bool(self._git("status", "--porcelain", "--untracked-files=all").strip())

    def commit_all(self, message: str) -> str | None:
        if not self.is_dirty():
            return None
        self._git("add", "-A")
        self._git("commit", "-q", "--no-verify", "-m", message)
        return self.head()

    def diff(self, base: str) -> str:
        return self._git("diff", "--no-color", "--no-ext-diff", "--stat", "--patch", base)

    def changed_files(self, base: str, head: str) -> list[str]:
        return self._git("diff", "--name-only", f"{base}..{head}").split()
