"""An instance's repository, made ready at its base commit in a folder of its own.

- An archive is unpacked (regular files and folders only), ``git init``-ed and committed
  with a fixed author, committer and date, so the commit id is the same on every machine;
  its ``base_patch``, if any, is applied and committed the same way. The result must be the
  instance's ``base_commit``.
- A local git repository or a git URL is cloned (without checking anything out of the
  user's own working tree) and the clone is put at ``base_commit``.

Every git command goes through the one runner (no hooks, no user configuration).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from workers.engine.statesync import extract_safely
from workers.eval.instance import Instance, is_archive
from workers.gitops.runner import Git, GitError

IDENTITY = ("-c", "user.name=agentium-eval", "-c", "user.email=eval@agentium.invalid")
FIXED_DATE = "2000-01-01T00:00:00+0000"
FIXED_ENV = {"GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
ARCHIVE_MESSAGE = "The archive as it is"
BASE_PATCH_MESSAGE = "The instance's base patch"


class SourceError(Exception):
    """The repository cannot be made ready; the message says why."""


def github_url(repo: str) -> str:
    return f"https://github.com/{repo}.git"


def materialise(instance: Instance, folder: Path, git: Git) -> Path:
    """The repository in ``folder`` (created), its HEAD at the base commit; its root."""
    source = instance.source or github_url(instance.repo)
    folder.mkdir(parents=True, exist_ok=False)
    try:
        if is_archive(source):
            root = from_archive(Path(source), folder, git, instance.base_patch)
        else:
            root = _cloned(source, folder / "repo", git)
        _check_out(root, git, instance.base_commit)
    except GitError as error:
        raise SourceError(f"{instance.instance_id}: {error}") from None
    return root


def from_archive(archive: Path, folder: Path, git: Git, base_patch: str) -> Path:
    unpacked = folder / "repo"
    unpacked.mkdir()
    try:
        with tarfile.open(archive) as opened:
            extract_safely(opened, unpacked)
    except (OSError, tarfile.TarError) as error:
        raise SourceError(f"cannot unpack {archive}: {error}") from None
    entries = list(unpacked.iterdir())
    root = entries[0] if len(entries) == 1 and entries[0].is_dir() else unpacked
    git.run("init", "-q", "-b", "main", cwd=root)
    _commit_all(root, git, ARCHIVE_MESSAGE)
    if base_patch:
        apply_patch(root, git, base_patch, folder / "base.patch")
        _commit_all(root, git, BASE_PATCH_MESSAGE)
    return root


def _commit_all(root: Path, git: Git, message: str) -> None:
    git.run("add", "-A", cwd=root)
    git.run(*IDENTITY, "commit", "-q", "--no-verify", "-m", message, cwd=root, extra_env=FIXED_ENV)


def apply_patch(root: Path, git: Git, patch: str, file: Path) -> None:
    """``git apply`` of ``patch`` (kept in ``file``, outside the tree) to the working tree."""
    file.write_text(patch if patch.endswith("\n") else patch + "\n", encoding="utf-8")
    git.run("apply", "--whitespace=nowarn", str(file), cwd=root)


def _cloned(source: str, target: Path, git: Git) -> Path:
    if not ("://" in source or source.startswith("git@")) and not Path(source).exists():
        raise SourceError(f"no repository at {source}")
    git.run("clone", "-q", "--no-checkout", source, str(target), cwd=target.parent)
    return target


def _check_out(root: Path, git: Git, commit: str) -> None:
    found = git.run("rev-parse", "-q", "--verify", f"{commit}^{{commit}}", cwd=root, check=False)
    if found.returncode != 0:
        head = git.run("rev-parse", "HEAD", cwd=root, check=False).stdout.strip()
        raise SourceError(f"base commit {commit} is not in the repository (its HEAD is {head})")
    git.run("checkout", "-q", "--detach", found.stdout.strip(), cwd=root)
    git.run("reset", "-q", "--hard", cwd=root)
