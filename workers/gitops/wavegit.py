"""The git of a wave (docs/design.md §8): a subtask's changes as a patch, and the join.

>>> patch = subtask_patch(git, checkout, start)       # everything changed since `start`
>>> joined = join_patches(repo, start, [("2a", p1), ("2b", p2)], message, when)
>>> joined.commit, joined.conflict, joined.files

A subtask works in a checkout of its own at the wave's starting commit and never commits
(if it does anyway, its commits are in the patch too). The join applies the patches in
subtask order on the starting commit with a three-way merge (so separate hunks of one file
join cleanly) and makes one commit; overlapping changes are a conflict, and the checkout is
put back at the starting commit. The commit's dates are given, so a join that is run again
(after a worker died in it) makes the very same commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workers.gitops.checkout import LocalGit
from workers.gitops.hardening import drop_nested_repositories

MAX_PATCH_BYTES = 8 * 1024 * 1024
CONFLICT_CHARS = 4000


class PatchTooLarge(RuntimeError):
    """A subtask changed more than MAX_PATCH_BYTES."""


@dataclass(frozen=True)
class Joined:
    commit: str = ""  # empty: nothing changed, or a conflict
    conflict: str = ""
    files: list[str] = field(default_factory=list)


def subtask_patch(repo: LocalGit, start: str, limit: int = MAX_PATCH_BYTES) -> str:
    """Every change in the checkout since ``start`` (new files, deletions, binaries); a
    repository an agent nested in the tree is removed first, as before any commit."""
    drop_nested_repositories(repo.root)  # their own config would run on `git add`
    repo.git.run("add", "-A", cwd=repo.root)
    patch = repo.git.run(
        "diff", "--cached", "--binary", "--full-index", "--no-color", "--no-ext-diff",
        "--no-renames", start, cwd=repo.root,
    ).stdout  # fmt: skip
    if len(patch.encode("utf-8", errors="replace")) > limit:
        raise PatchTooLarge(f"{len(patch):,} characters of changes (at most {limit:,})")
    return patch


def reset_to(repo: LocalGit, commit: str) -> None:
    repo.git.run("reset", "-q", "--hard", commit, cwd=repo.root)
    repo.git.run("clean", "-q", "-fdx", cwd=repo.root)


def _apply(repo: LocalGit, patch_file: Path) -> str:
    """Apply one patch to the index and tree; git's complaint when it does not apply."""
    done = repo.git.run(
        "apply", "--index", "--3way", "--whitespace=nowarn", str(patch_file),
        cwd=repo.root, check=False,
    )  # fmt: skip
    if done.returncode == 0:
        return ""
    return (done.stderr or done.stdout or "the patch does not apply").strip()


def join_patches(
    repo: LocalGit,
    start: str,
    patches: Sequence[tuple[str, str]],
    message: str,
    when: str,
    scratch: Path,
) -> Joined:
    """Apply ``patches`` ((subtask id, patch) in subtask order) on ``start``; one commit
    dated ``when`` (ISO 8601), or the conflict. ``scratch`` is a directory for patch files."""
    reset_to(repo, start)
    scratch.mkdir(parents=True, exist_ok=True)
    applied: list[str] = []
    for subtask, patch in patches:
        if not patch.strip():
            continue
        patch_file = scratch / f"subtask-{len(applied)}.patch"
        patch_file.write_text(patch, encoding="utf-8")
        problem = _apply(repo, patch_file)
        patch_file.unlink()
        if problem:
            reset_to(repo, start)
            after = f" on top of {', '.join(applied)}" if applied else ""
            text = f"The changes of subtask {subtask} do not apply{after}:\n{problem}"
            return Joined(conflict=text[:CONFLICT_CHARS])
        applied.append(subtask)
    if not repo.is_dirty():
        return Joined()
    dates = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    repo.git.run(
        *repo.identity, "commit", "-q", "--no-verify", "-m", message,
        cwd=repo.root, extra_env=dates,
    )  # fmt: skip
    commit = repo.head()
    return Joined(commit=commit, files=repo.changed_files(start, commit))
