"""A machine's copy of a repository's default branch, which task checkouts clone from.

A task's checkout used to be cloned over the network every time. Now it is cloned from
this copy, on the same disk, while GitHub is asked where the default branch is and whether
the task's branch exists (:mod:`workers.github.heads`, one GraphQL request); the clone is
kept when it is at exactly that commit and there is no task branch, and is made over the
network otherwise (as before, then fed to the copy).

What the copy may be trusted with: it is only ever fed from a checkout the bot has just
cloned from the remote, before any agent ran in it, and a clone from it is checked against
the remote's answer. Checkouts share its object files (hard links); agents cannot write
them (a checkout's ``.git`` is read-only in the sandbox, whose user owns none of them,
and the file tools refuse it). Every failure of the copy falls back to the network: it can
make a step faster, never wrong. To start afresh, remove ``DATA_DIR/git-cache``; a copy
no task has used for a week is removed by the workers (``workers.gitops.cache_sweep``).

Spares: a task's first step, once its model call is on its way, clones one checkout ahead
from the copy (``DATA_DIR/git-cache/<repo>.spares``), which the next task's first step
takes with a rename instead of cloning; it is checked against GitHub like any clone from
the copy, and one no longer current is thrown away.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from workers.gitops.cache_sweep import touch_used
from workers.gitops.runner import Git, GitError

log = logging.getLogger("agentium.git")

CACHE = "git-cache"  # under DATA_DIR: one bare repository per repository
SPARES = 1  # checkouts kept cloned ahead, per repository and branch
MAKING_TTL_S = 3600  # a spare half-made this long ago was left by a killed step


def cache_path(root: Path, repo: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", repo.replace("/", "__"))
    return root / CACHE / f"{safe}.git"


@dataclass(frozen=True)
class RemoteHeads:
    """What GitHub says: its default branch, that branch's commit, the task branch's
    commit (None: there is no task branch)."""

    default_branch: str
    head: str
    task_head: str | None


class RepoCache:
    def __init__(self, path: Path, git: Git) -> None:
        self.path = path
        self._git = git

    def branch(self) -> str | None:
        """The branch the copy holds, None when there is no copy yet."""
        try:
            head = (self.path / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if not head.startswith("ref: refs/heads/") or "\n" in head:
            return None
        if not (self.path / "objects").is_dir():
            return None
        return head.removeprefix("ref: refs/heads/")

    def clone(self, dest: Path, branch: str, config: tuple[str, ...]) -> str | None:
        """Clone ``branch`` of the copy into ``dest`` (hard links, no network), with
        ``config`` (``key=value``) set; its commit, or None when the copy failed."""
        settings = [arg for item in config for arg in ("--config", item)]
        try:
            self._git.run(
                "clone", "--quiet", "--local", "--single-branch", "--no-tags",
                "--branch", branch, *settings, "--", str(self.path), str(dest),
                cwd=dest.parent,
            )  # fmt: skip
            known = _branch_head(dest, branch)
            return known or self._git.run("rev-parse", "HEAD", cwd=dest).stdout.strip()
        except GitError as error:
            log.warning("cloning from the repository copy failed: %s", error)
            shutil.rmtree(dest, ignore_errors=True)
            return None

    def check_out(self, dest: Path, branch: str, config: tuple[str, ...], url: str) -> str | None:
        """``branch`` at ``dest`` with ``config`` set and ``url`` as its origin: a spare
        taken, or a clone of the copy; its commit, or None when the copy failed."""
        touch_used(self.path)
        head = self._take_spare(dest, _tag(branch, config, url))
        return head or self._clone_for(dest, branch, config, url)

    def make_spare(self, branch: str, config: tuple[str, ...], url: str) -> None:
        """Check out one ahead for the next task of this repository (best effort)."""
        spares, tag = self._spares(), _tag(branch, config, url)
        if len(list(spares.glob(f"*-{tag}-*"))) >= SPARES:
            return
        spares.mkdir(parents=True, exist_ok=True)
        for left in spares.glob(".making-*"):
            if time.time() - left.stat().st_mtime > MAKING_TTL_S:
                shutil.rmtree(left, ignore_errors=True)
        making = spares / f".making-{uuid.uuid4().hex}"
        head = self._clone_for(making, branch, config, url)
        if head is not None:
            try:
                making.replace(spares / f"{head}-{tag}-{uuid.uuid4().hex[:8]}")
            except OSError:  # the copy was swept meanwhile (workers.gitops.cache_sweep)
                shutil.rmtree(making, ignore_errors=True)

    def _take_spare(self, dest: Path, tag: str) -> str | None:
        """Move a fitting spare to ``dest`` (a rename: no other step can take it too)."""
        for spare in sorted(self._spares().glob(f"*-{tag}-*")):
            try:
                spare.rename(dest)
            except OSError:  # taken meanwhile, or DATA_DIR spans file systems
                continue
            return spare.name.split("-", 1)[0]
        return None

    def _clone_for(self, dest: Path, branch: str, config: tuple[str, ...], url: str) -> str | None:
        head = self.clone(dest, branch, config)
        if head is not None:
            try:
                self._git.run("remote", "set-url", "origin", url, cwd=dest)
            except GitError as error:
                log.warning("cloning from the repository copy failed: %s", error)
                shutil.rmtree(dest, ignore_errors=True)
                return None
        return head

    def _spares(self) -> Path:
        return self.path.with_name(self.path.name.removesuffix(".git") + ".spares")

    def feed(self, checkout: Path, branch: str) -> None:
        """Make the copy hold ``branch`` as a fresh network clone at ``checkout`` has it
        (``refs/remotes/origin/<branch>``). Best effort: a failure is logged, no more."""
        touch_used(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not (self.path / "objects").is_dir():
                self._git.run("init", "--quiet", "--bare", str(self.path), cwd=self.path.parent)
            refspec = f"+refs/remotes/origin/{branch}:refs/heads/{branch}"
            self._git.run("fetch", "--quiet", "--no-tags", str(checkout), refspec, cwd=self.path)
            self._git.run("symbolic-ref", "HEAD", f"refs/heads/{branch}", cwd=self.path)
        except (GitError, OSError) as error:
            log.warning("could not update the repository copy: %s", error)


def _branch_head(checkout: Path, branch: str) -> str | None:
    """The commit of a branch a clone has just written as a loose ref (no git process);
    None when it is not there as one."""
    try:
        sha = (checkout / ".git" / "refs" / "heads" / branch).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return sha if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha) else None


def _tag(branch: str, config: tuple[str, ...], url: str) -> str:
    """Which spares fit a checkout: of this branch, with this identity and origin."""
    return hashlib.sha256("\0".join((branch, *config, url)).encode()).hexdigest()[:12]
