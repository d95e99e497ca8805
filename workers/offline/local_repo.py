"""The local repository of ``agentium local``: checks, the task's branch, and the issue file.

The branch is created from the repository's HEAD in a git worktree under the data
directory, so the person's own working tree and branches are never touched; nothing is
pushed. Every git command runs with hooks disabled and without the user's git config.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from workers.gitops.runner import Git, GitError

_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
SLUG_CHARS = 40
SHOWN_PATHS = 5


class LocalError(Exception):
    """The run cannot start; the message says why and what to do."""


@dataclass(frozen=True)
class IssueFile:
    title: str
    body: str


def read_issue(path: Path) -> IssueFile:
    """The first markdown heading is the title; every other line is the body."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise LocalError(f"cannot read the issue file {path}: {error}") from None
    for index, line in enumerate(lines):
        match = _HEADING_RE.match(line)
        if match and match[1]:
            body = "\n".join(lines[:index] + lines[index + 1 :]).strip()
            return IssueFile(title=match[1], body=body)
    raise LocalError(f"{path} has no markdown heading (`# Title`) to use as the issue's title")


def slug(title: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return words[:SLUG_CHARS].rstrip("-") or "issue"


@dataclass(frozen=True)
class LocalRepo:
    root: Path
    git: Git

    def run(self, *args: str, cwd: Path | None = None) -> str:
        try:
            return self.git.run(*args, cwd=cwd or self.root).stdout
        except GitError as error:
            raise LocalError(str(error)) from None

    def head(self) -> str:
        return self.run("rev-parse", "HEAD").strip()

    def current_branch(self) -> str:
        name = self.git.run("symbolic-ref", "--short", "-q", "HEAD", cwd=self.root, check=False)
        return name.stdout.strip() or "detached HEAD"

    def dirty_paths(self) -> list[str]:
        status = self.run("status", "--porcelain", "--untracked-files=normal")
        return [line[3:] for line in status.splitlines() if line.strip()]

    def has_branch(self, name: str) -> bool:
        found = self.git.run(
            "show-ref", "--verify", "--quiet", f"refs/heads/{name}", cwd=self.root, check=False
        )
        return found.returncode == 0

    def check_branch_name(self, name: str) -> None:
        valid = self.git.run("check-ref-format", "--branch", name, cwd=self.root, check=False)
        if valid.returncode != 0 or name.startswith("-"):
            raise LocalError(f"{name!r} is not a valid branch name")
        if self.has_branch(name):
            raise LocalError(
                f"branch {name} already exists in {self.root}; pass --branch NAME "
                f"or delete it (git branch -D {name})"
            )

    def add_worktree(self, path: Path, branch: str, base: str) -> None:
        """The new branch at ``base``, checked out in ``path`` (not in the person's tree)."""
        self.run("worktree", "add", "--quiet", "-b", branch, str(path), base)

    def remove_worktree(self, path: Path) -> None:
        """Drop the worktree (its commits stay on the branch) so the branch can be checked
        out in the repository itself."""
        if path.exists():
            self.git.run("worktree", "remove", "--force", str(path), cwd=self.root, check=False)
        self.git.run("worktree", "prune", cwd=self.root, check=False)

    def log(self, base: str, branch: str) -> list[str]:
        return self.run("log", "--oneline", "--no-decorate", f"{base}..{branch}").splitlines()

    def short(self, sha: str) -> str:
        return self.run("rev-parse", "--short", sha).strip()


def open_repo(path: Path, git: Git) -> LocalRepo:
    """The repository at ``path``: refused unless it is a git repository with a commit and a
    clean working tree."""
    if not path.is_dir():
        raise LocalError(f"{path} is not a directory")
    top = git.run("rev-parse", "--show-toplevel", cwd=path, check=False)
    if top.returncode != 0:
        raise LocalError(f"{path} is not a git repository (git init, then commit your code)")
    repo = LocalRepo(Path(top.stdout.strip()).resolve(), git)
    if git.run("rev-parse", "--verify", "-q", "HEAD", cwd=repo.root, check=False).returncode:
        raise LocalError(f"{repo.root} has no commit yet: commit your code first")
    dirty = repo.dirty_paths()
    if dirty:
        shown = ", ".join(dirty[:SHOWN_PATHS]) + (" ..." if len(dirty) > SHOWN_PATHS else "")
        raise LocalError(
            f"the working tree of {repo.root} is dirty ({shown}); commit or stash your "
            "changes first: the branch starts from HEAD"
        )
    return repo
