"""The git of a wave against real git: subtask patches and the join (docs/design.md §8)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from workers.gitops.checkout import LocalGit
from workers.gitops.runner import Git
from workers.gitops.wavegit import PatchTooLarge, join_patches, reset_to, subtask_patch

WHEN = "2025-01-02T03:04:05+00:00"
BASE = "".join(f"line {n}\n" for n in range(1, 21))


def run(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def origin(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "origin"
    repo.mkdir()
    run(repo, "init", "-q", "-b", "main")
    (repo / "shared.py").write_text(BASE)
    (repo / "gone.txt").write_text("delete me\n")
    run(repo, "add", "-A")
    run(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base")
    return repo, run(repo, "rev-parse", "HEAD").strip()


def checkout(tmp_path: Path, origin: Path, name: str) -> LocalGit:
    path = tmp_path / name
    run(tmp_path, "clone", "-q", str(origin), str(path))
    (tmp_path / "home").mkdir(exist_ok=True)
    return LocalGit(path, Git(tmp_path / "home"), author="bot[bot]", email="bot@example.com")


def edit(repo: LocalGit, name: str, old: str, new: str) -> None:
    path = repo.root / name
    path.write_text(path.read_text().replace(old, new))


def test_disjoint_subtasks_join_into_one_commit_made_again_identically(
    tmp_path: Path, origin: tuple[Path, str]
) -> None:
    source, start = origin
    a, b, main = (checkout(tmp_path, source, n) for n in ("a", "b", "main"))
    edit(a, "shared.py", "line 2\n", "line two\n")  # same file, hunks far apart
    (a.root / "tests").mkdir()
    (a.root / "tests" / "test_new.py").write_text("def test_x(): pass\n")
    edit(b, "shared.py", "line 19\n", "line nineteen\n")
    (b.root / "logo.bin").write_bytes(bytes(range(256)))
    (b.root / "gone.txt").unlink()
    run(b.root, "init", "-q", "vendor/evil")  # a nested repository: dropped, never added
    patches = [("2a", subtask_patch(a, start)), ("2b", subtask_patch(b, start))]
    joined = join_patches(main, start, patches, "Wave 2: A, B", WHEN, tmp_path / "scratch")
    assert joined.conflict == "" and joined.commit
    assert sorted(joined.files) == ["gone.txt", "logo.bin", "shared.py", "tests/test_new.py"]
    text = (main.root / "shared.py").read_text()
    assert "line two\n" in text and "line nineteen\n" in text
    assert (main.root / "logo.bin").read_bytes() == bytes(range(256))
    assert run(main.root, "log", "-1", "--format=%s|%an|%cI") == f"Wave 2: A, B|bot[bot]|{WHEN}\n"
    assert run(main.root, "rev-parse", "HEAD~1").strip() == start
    again = join_patches(main, start, patches, "Wave 2: A, B", WHEN, tmp_path / "scratch")
    assert again.commit == joined.commit  # a join run twice makes the same commit


def test_overlapping_changes_are_a_conflict_and_the_checkout_is_left_at_the_start(
    tmp_path: Path, origin: tuple[Path, str]
) -> None:
    source, start = origin
    a, b, main = (checkout(tmp_path, source, n) for n in ("a", "b", "main"))
    edit(a, "shared.py", "line 5\n", "five by a\n")
    edit(b, "shared.py", "line 5\n", "five by b\n")
    patches = [("1a", subtask_patch(a, start)), ("1b", subtask_patch(b, start))]
    joined = join_patches(main, start, patches, "Wave 1", WHEN, tmp_path / "scratch")
    assert joined.commit == "" and joined.conflict.startswith(
        "The changes of subtask 1b do not apply on top of 1a:"
    )
    assert "shared.py" in joined.conflict
    assert main.head() == start and not main.is_dirty()


def test_a_subtask_that_commits_or_changes_nothing(
    tmp_path: Path, origin: tuple[Path, str]
) -> None:
    source, start = origin
    a, b, main = (checkout(tmp_path, source, n) for n in ("a", "b", "main"))
    edit(a, "shared.py", "line 1\n", "first\n")
    run(a.root, "-c", "user.name=x", "-c", "user.email=x@e", "commit", "-qam", "sneaky")
    assert subtask_patch(b, start) == ""
    patches = [("1", subtask_patch(a, start)), ("2", "")]
    joined = join_patches(main, start, patches, "Wave 1", WHEN, tmp_path / "scratch")
    assert joined.files == ["shared.py"]
    nothing = join_patches(main, start, [("2", "")], "Wave 1", WHEN, tmp_path / "scratch")
    assert nothing.commit == "" and nothing.conflict == "" and main.head() == start


def test_a_patch_too_large_is_refused(tmp_path: Path, origin: tuple[Path, str]) -> None:
    source, start = origin
    a = checkout(tmp_path, source, "a")
    (a.root / "big.txt").write_text("x" * 5000)
    with pytest.raises(PatchTooLarge):
        subtask_patch(a, start, limit=1000)
    reset_to(a, start)
    assert not a.is_dirty()
