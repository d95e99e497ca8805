"""Git in a checkout without credentials: HEAD, status, commit everything, diffs.

Used by the agents' runner (the :class:`workers.agents.gitview.Checkout` seam), by local
mode and by the task's workspace. Commands go through :class:`workers.gitops.runner.Git`
(hooks disabled, so nothing an agent wrote into the tree runs outside the sandbox); a
repository an agent nested in the tree is removed before a commit.
"""

from __future__ import annotations

from pathlib import Path

from workers.gitops.hardening import drop_nested_repositories
from workers.gitops.runner import Git


class LocalGit:
    def __init__(self, root: Path, git: Git, *, author: str, email: str) -> None:
        self.root = root
        self.git = git
        self.identity = ("-c", f"user.name={author}", "-c", f"user.email={email}")

    def _git(self, *args: str) -> str:
        return self.git.run(*self.identity, *args, cwd=self.root).stdout

    def head(self) -> str:
        return self._git("rev-parse", "HEAD").strip()

    def is_dirty(self) -> bool:
        return bool(self._git("status", "--porcelain", "--untracked-files=all").strip())

    def commit_all(self, message: str) -> str | None:
        drop_nested_repositories(self.root)  # their own config would run on `git add`
        if not self.is_dirty():
            return None
        self._git("add", "-A")
        self._git("commit", "-q", "--no-verify", "-m", message)
        return self.head()

    def diff(self, base: str) -> str:
        return self._git("diff", "--no-color", "--no-ext-diff", "--stat", "--patch", base)

    def diff_stat(self, base: str) -> str:
        return self._git("diff", "--no-color", "--no-ext-diff", "--stat=100", base)

    def changed_files(self, base: str, head: str) -> list[str]:
        return self._git("diff", "--name-only", f"{base}..{head}").split()

    def discard_changes(self) -> None:
        self._git("reset", "-q", "--hard", "HEAD")
        self._git("clean", "-q", "-fd")
