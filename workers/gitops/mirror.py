"""One local copy of a repository's branches per machine, that task checkouts are cloned
from: a task's first step then asks GitHub only what changed (one fetch, usually no pack)
instead of downloading the repository again.

    mirror = Mirror(data_dir / "mirrors" / "octo__iniconfig", url, token, git)
    source = mirror.refresh()        # made at the first use, fetched at every later one
    git clone --no-hardlinks source checkout; git remote set-url origin url

The mirror is an ordinary repository without a working tree (``--no-checkout``) whose
``refs/heads/*`` are GitHub's, fetched with ``--prune``; the clone made from it therefore
has every branch of GitHub as ``refs/remotes/origin/*``, as a clone from GitHub has. The
checkout shares nothing with it (``--no-hardlinks``: the sandbox lends the checkout to its
own user) and its ``origin`` is GitHub's URL again, so pushes and later fetches go there.
The token reaches git as for every command (``workers.gitops.runner``); the mirror lives
in the data directory, which no sandboxed command sees, and its config holds only the keys
a clone writes (git refuses the token otherwise). A lock file keeps the machine's workers
from fetching into it at once. The default branch is the one GitHub named when the mirror
was made (remove the mirror to pick up a renamed default branch).
"""

from __future__ import annotations

import fcntl
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from workers.gitops.runner import Git

MIRRORS = "mirrors"  # under DATA_DIR: one per repository a worker of this machine cloned


def mirror_path(root: Path, repo: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", repo.replace("/", "__"))
    return root / MIRRORS / safe


class Mirror:
    def __init__(self, path: Path, url: str, token: Callable[[], str] | None, git: Git) -> None:
        self.path = path
        self._url = url
        self._token = token
        self._git = git

    def refresh(self) -> Path:
        """The mirror with GitHub's branches as they are now."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(self.path.with_name(self.path.name + ".lock")):
            ready = (self.path / ".git").is_dir() and self._git.run(
                "config", "agentium.ready", cwd=self.path, check=False
            ).stdout.strip()
            if not ready:
                self._make()
            self._remote(
                "fetch", "--quiet", "--prune", "--no-tags", "--update-head-ok", "origin",
                "+refs/heads/*:refs/heads/*", cwd=self.path,
            )  # fmt: skip
            if not ready:
                self._git.run("config", "agentium.ready", "true", cwd=self.path)
        return self.path

    def clone_into(self, checkout: Path) -> None:
        """``checkout`` made from the mirror, independent of it, with GitHub as origin."""
        source = self.refresh()
        self._git.run(
            "clone", "--quiet", "--no-hardlinks", "--no-tags", "--",
            str(source), str(checkout), cwd=checkout.parent,
        )  # fmt: skip
        self._git.run("remote", "set-url", "origin", self._url, cwd=checkout)

    def _make(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self._remote(
            "clone", "--quiet", "--no-checkout", "--no-tags", "--", self._url, str(self.path),
            cwd=self.path.parent,
        )  # fmt: skip

    def _remote(self, *args: str, cwd: Path) -> None:
        token = self._token() if self._token else None
        self._git.run(*args, cwd=cwd, token=token)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
