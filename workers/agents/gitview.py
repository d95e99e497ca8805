"""What the runner needs from git: HEAD, whether the checkout changed, a commit, a diff,
and putting the working tree back after a test run.

:class:`Checkout` is the seam; :class:`workers.gitops.checkout.LocalGit` implements it
with the bot's one git runner.
"""

from __future__ import annotations

from typing import Protocol


class Checkout(Protocol):
    def head(self) -> str: ...

    def is_dirty(self) -> bool: ...

    def commit_all(self, message: str) -> str | None:
        """Commit every change (new files included); the new SHA, None if nothing changed."""
        ...

    def diff(self, base: str) -> str:
        """The diff of the working tree against ``base``."""
        ...

    def diff_stat(self, base: str) -> str:
        """The files the working tree changed against ``base``, with their line counts."""
        ...

    def changed_files(self, base: str, head: str) -> list[str]: ...

    def discard_changes(self) -> None:
        """Put the working tree back at HEAD: what a command wrote or changed is gone
        (files git ignores stay; they are never committed)."""
        ...
