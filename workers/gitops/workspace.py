"""One task's checkout: ``agentium/issue-<N>`` cloned into its own directory.

>>> ws = GitWorkspace(path, remote_url, issue=22, identity=bot_identity(1, "agentium"),
...                   token=lambda: clients.token(installation_id), git=Git(home))
>>> ws.prepare()                          # clone (from the machine's copy when it is current),
...                                       # or reuse the directory; reuse the pushed branch
>>> ws.commit("IMPLEMENT", 1, "summary")  # as SLUG[bot]; None when nothing changed
>>> ws.push()                             # force-with-lease on the commit last seen remotely
>>> ws.cleanup()                          # when the task ends

The state between steps (which may run in different processes) lives in the checkout
itself: the base branch in ``agentium.base`` and the remote branch's last known commit in
``refs/remotes/origin/agentium/issue-<N>``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from workers.gitops.cache import RemoteHeads, RepoCache
from workers.gitops.checkout import LocalGit
from workers.gitops.ready import READY, remove_checkout
from workers.gitops.runner import Git, GitError

BRANCH_PREFIX = "agentium/issue-"


@dataclass(frozen=True)
class Identity:
    name: str
    email: str


def bot_identity(app_id: int, slug: str) -> Identity:
    """The App's bot user, as GitHub attributes its commits."""
    return Identity(f"{slug}[bot]", f"{app_id}+{slug}[bot]@users.noreply.github.com")


@dataclass(frozen=True)
class PushResult:
    head_sha: str
    base_branch: str
    pushed: bool  # False when the remote branch already had this commit


WORKSPACES = "workspaces"  # under DATA_DIR: one checkout per task
_UNKNOWN = object()


def workspace_path(root: Path, repo: str, issue: int) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", repo.replace("/", "__"))
    return root / WORKSPACES / f"{safe}__{issue}"


def commit_message(issue: int, phase: str, iteration: int, summary: str = "") -> str:
    title = f"agentium: {phase.lower()} iteration {iteration} for #{issue}"
    body = f"\n\n{summary.strip()}" if summary.strip() else ""
    return f"{title}{body}\n\nIssue: #{issue}\nPhase: {phase}\nIteration: {iteration}\n"


class GitWorkspace:
    def __init__(
        self,
        path: Path,
        remote_url: str,
        issue: int,
        identity: Identity,
        token: Callable[[], str] | None,
        git: Git,
        depth: int | None = None,
        cache: RepoCache | None = None,
        heads: Callable[[], RemoteHeads | None] | None = None,
    ) -> None:
        self.path = path
        self._url = remote_url
        self.issue = issue
        self._identity = identity
        self._token = token
        self.git = git
        self._depth = depth
        self._cache = cache  # the machine's copy of the repository, cloned from when current
        self._heads = heads  # where GitHub says the default branch and the task's branch are
        self._ready = False  # this checkout was found or made complete by this object
        self._tracked: str | object | None = _UNKNOWN  # the tracking ref, once asked
        self.cloned_head: str | None = None  # HEAD of a checkout this object cloned, if known
        self._spare: tuple[str, tuple[str, ...], str] | None = None  # a spare's making

    @property
    def branch(self) -> str:
        return f"{BRANCH_PREFIX}{self.issue}"

    @property
    def _tracking(self) -> str:
        return f"refs/remotes/origin/{self.branch}"

    def _remote(self, *args: str, cwd: Path | None = None) -> str:
        token = self._token() if self._token else None
        self._tracked = _UNKNOWN  # a fetch or a push may move the tracking ref
        return self.git.run(*args, cwd=cwd or self.path, token=token).stdout

    def _local(self, *args: str, check: bool = True) -> str:
        return self.git.run(*args, cwd=self.path, check=check).stdout.strip()

    def prepare(self) -> Path:
        """Clone unless the checkout exists; continue the pushed branch if there is one.

        A checkout counts once it is complete (``.git/agentium-ready``, written last; a
        checkout made before that file says so in its config): one left half-made by a
        worker killed mid-clone is made again rather than used forever."""
        if (self.path / ".git").is_dir() and (
            self._ready
            or (self.path / READY).is_file()
            or self._local("config", "agentium.ready", check=False)
        ):
            self._ready = True
            return self.path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(self.path, ignore_errors=True)
        if not self._clone_from_cache():
            self._clone_from_remote()
        (self.path / READY).write_text("true\n")
        self._ready = True
        return self.path

    def _identity_config(self) -> tuple[str, str]:
        return (f"user.name={self._identity.name}", f"user.email={self._identity.email}")

    def _clone_from_cache(self) -> bool:
        """Check out from the machine's copy while GitHub is asked where the default branch
        is; True when the copy had exactly that and the task has no branch yet."""
        branch = self._cache.branch() if self._cache and self._heads and not self._depth else None
        if self._cache is None or self._heads is None or branch is None:
            return False
        self._spare = (branch, (*self._identity_config(), f"agentium.base={branch}"), self._url)
        with ThreadPoolExecutor(max_workers=1) as beside:
            asked = beside.submit(self._heads)
            head = self._cache.check_out(self.path, *self._spare)
            if head is not None:
                self._local("checkout", "-q", "-b", self.branch)
            remote = asked.result()
        if head is None or remote != RemoteHeads(branch, head, None):
            shutil.rmtree(self.path, ignore_errors=True)
            return False
        self.cloned_head, self._tracked = head, None  # no task branch yet: nothing tracked
        return True

    def leave_spare(self) -> None:
        """Check out one ahead for the repository's next task, from the copy used or fed."""
        if self._cache is not None and self._spare is not None:
            self._cache.make_spare(*self._spare)

    def _clone_from_remote(self) -> None:
        depth = ("--depth", str(self._depth)) if self._depth else ()
        who = self._identity_config()
        self._remote(
            "clone", "--no-tags", *depth, "--config", who[0], "--config", who[1],
            "--", self._url, str(self.path), cwd=self.path.parent,
        )  # fmt: skip
        base = self._cloned_branch()
        self._local("config", "agentium.base", base)
        if self._depth:  # a shallow clone has the default branch alone: ask for the task's
            listed = self._remote("ls-remote", "--heads", "origin", f"refs/heads/{self.branch}")
            if listed.strip():
                self._remote(
                    "fetch", "--no-tags", *depth, "origin",
                    f"+refs/heads/{self.branch}:{self._tracking}",
                )  # fmt: skip
        elif self._cache is not None:
            self._cache.feed(self.path, base)
            self._spare = (base, (*who, f"agentium.base={base}"), self._url)
        if self.remote_head() is not None:  # a full clone fetched every branch already
            self._local("checkout", "-B", self.branch, self._tracking)
        else:
            self._local("checkout", "-b", self.branch)

    def _cloned_branch(self) -> str:
        """The branch a fresh clone checked out, read from its HEAD file (a git process
        less on the way to the first call), or asked of git if the file is unexpected."""
        head = (self.path / ".git" / "HEAD").read_text(encoding="utf-8").strip()
        if head.startswith("ref: refs/heads/") and "\n" not in head:
            return head.removeprefix("ref: refs/heads/")
        return self._local("rev-parse", "--abbrev-ref", "HEAD")

    def base_branch(self) -> str:
        return self._local("config", "agentium.base")

    def head(self) -> str:
        return self._local("rev-parse", "HEAD")

    def has(self, commit: str) -> bool:
        """Whether this checkout holds ``commit`` (a commit not pushed lives only here)."""
        found = self.git.run("cat-file", "-e", f"{commit}^{{commit}}", cwd=self.path, check=False)
        return found.returncode == 0

    def checkout(self) -> LocalGit:
        """Git in the checkout as the bot user (commits, diffs)."""
        return LocalGit(self.path, self.git, author=self._identity.name, email=self._identity.email)

    def commit(self, phase: str, iteration: int, summary: str = "") -> str | None:
        """Commit every change as the bot user; the new commit, or None if nothing changed."""
        return self.checkout().commit_all(commit_message(self.issue, phase, iteration, summary))

    def remote_head(self) -> str | None:
        """The branch's commit on the remote as last fetched or pushed (asked of git once
        between this object's own fetches and pushes)."""
        if self._tracked is _UNKNOWN:
            sha = self._local("rev-parse", "--verify", "-q", self._tracking, check=False)
            self._tracked = sha or None
        return self._tracked if isinstance(self._tracked, str) else None

    def push(self) -> PushResult:
        """Push HEAD to the task branch, refusing to overwrite commits not seen here."""
        head, base = self.head(), self.base_branch()
        expected = self.remote_head()
        if expected == head:
            return PushResult(head, base, pushed=False)
        try:
            self._push_leased(expected)
        except GitError:
            # The lease is stale when a killed step pushed after this checkout last looked
            # (or between its push and the update of the tracking ref). Look again: if the
            # branch holds nothing this checkout lacks, push on the fresh lease; otherwise
            # somebody else's commits are there and the push stays refused.
            fresh = self._fetch_branch()
            if fresh is None or not self._contains(fresh):
                raise
            if fresh != head:
                self._push_leased(fresh)
        self._local("update-ref", self._tracking, head)
        self._tracked = head
        return PushResult(head, base, pushed=True)

    def _push_leased(self, expected: str | None) -> None:
        lease = f"--force-with-lease=refs/heads/{self.branch}:{expected or ''}"
        self._remote("push", "-q", lease, "origin", f"HEAD:refs/heads/{self.branch}")

    def _fetch_branch(self) -> str | None:
        """The remote branch's commit, fetched into the tracking ref; None if there is none."""
        listed = self._remote("ls-remote", "--heads", "origin", f"refs/heads/{self.branch}")
        if not listed.strip():
            return None
        self._remote("fetch", "--no-tags", "origin", f"+refs/heads/{self.branch}:{self._tracking}")
        return self.remote_head()

    def _contains(self, commit: str) -> bool:
        """Whether HEAD already has `commit` (so pushing HEAD loses nothing)."""
        done = self.git.run(
            "merge-base", "--is-ancestor", commit, "HEAD", cwd=self.path, check=False
        )
        return done.returncode == 0

    def pushed_head(self) -> str | None:
        """The last commit this checkout pushed to the task branch (no network)."""
        if not (self.path / ".git").is_dir():
            return None  # cleaned up when the task ended
        return self.remote_head()

    def sync_to(self, commit: str, *, fetch: bool = True) -> None:
        """Put the branch at `commit`, the one the task last pushed, whoever pushed it.

        A step on a worker whose checkout is older (another worker ran the last steps) or
        holds what a killed step left behind starts from exactly the recorded commit. The
        remote branch is fetched every time: a killed step may have pushed from another
        checkout, and a push leased on a stale tracking ref would be refused forever.
        ``fetch=False``: the branch was never pushed (``commit`` waits to be pushed).
        """
        if fetch:
            refspec = f"+refs/heads/{self.branch}:{self._tracking}"
            self._remote("fetch", "--no-tags", "origin", refspec)
        if self.head() == commit and not self._local("status", "--porcelain"):
            return
        self._local("checkout", "-q", "-B", self.branch, commit)
        self._local("reset", "-q", "--hard", commit)
        self._local("clean", "-q", "-fdx")

    def detach_at(self, commit: str) -> None:
        """Put the checkout at `commit`, detached and clean (a wave's subtask starts there);
        the task branch is fetched first when the checkout lacks the commit."""
        if not self.has(commit):
            self._fetch_branch()
        self._local("checkout", "-q", "--detach", commit)
        self._local("reset", "-q", "--hard", commit)
        self._local("clean", "-q", "-fdx")

    def cleanup(self) -> None:
        """Remove the checkout, and the checkouts its wave's subtasks had on this machine."""
        self._ready, self._tracked = False, _UNKNOWN
        for path in (self.path, *self.path.parent.glob(f"{self.path.name}.slot*")):
            remove_checkout(path)
