"""What the runner needs from git: HEAD, whether the checkout changed, a commit, a diff.

:class:`Checkout` is the seam (the controller side may pass its own implementation from
``workers/gitops``); :class:`LocalGit` shells out to git on the checkout. Every command runs
with ``SAFE_CONFIG`` (no hooks, no fsmonitor) in an environment without the worker's
secrets or the host's git config, and repositories nested in the tree are removed before a
commit, so nothing the agent wrote into the tree runs outside the sandbox.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Protocol

from workers.gitops.hardening import SAFE_CONFIG, drop_nested_repositories
from workers.gitops.runner import base_env


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
            ["git", *SAFE_CONFIG, *self.identity, *args],
            cwd=self.root,
            env=base_env(Path(os.devnull)),
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
        drop_nested_repositories(self.root)
        if not self.is_dirty():
            return None
        self._git("add", "-A")
        self._git("commit", "-q", "--no-verify", "-m", message)
        return self.head()

    def diff(self, base: str) -> str:
        return self._git("diff", "--no-color", "--no-ext-diff", "--stat", "--patch", base)

    def changed_files(self, base: str, head: str) -> list[str]:
        return self._git("diff", "--name-only", f"{base}..{head}").split()
