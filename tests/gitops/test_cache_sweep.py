"""Repository copies no task has used for long are removed, against real git: the fake
GitHub's smart HTTP as the remote, the copy and its spares made by real steps."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import ISSUE, REPO, TaskFactory
from tests.gitops.test_cache import _git, _spares, _workspace
from workers.gitops.cache import CACHE, RepoCache, cache_path
from workers.gitops.cache_sweep import CacheSweep
from workers.gitops.runner import Git, GitResult, run_process

DAY = 86400.0
NAME = "octo__hello"


def _sweep(tasks: TaskFactory, at: float, ttl_s: float = 7 * DAY) -> CacheSweep:
    return CacheSweep(tasks.root / CACHE, ttl_s=ttl_s, every_s=300, clock=lambda: at)


def _left(tasks: TaskFactory) -> list[str]:
    return sorted(path.name for path in (tasks.root / CACHE).iterdir())


def test_an_unused_copy_and_its_spares_go_and_the_next_task_clones_over_the_network(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    first.leave_spare()
    assert _left(tasks) == [f"{NAME}.git", f"{NAME}.spares", f"{NAME}.used"]
    assert len(_spares(tasks)) == 1

    assert _sweep(tasks, time.time() + 6 * DAY).run() == []  # used within the week
    assert _sweep(tasks, time.time() + 8 * DAY).run() == [NAME]
    assert _left(tasks) == []  # nothing set aside is left either

    second, network = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert network.ran("clone")[0][-2] == fake_github.git_url(REPO)
    assert second.head() == fake_github.branch_sha(REPO, "main")
    cache = RepoCache(cache_path(tasks.root, REPO), Git(tasks.root))
    assert cache.branch() == "main"  # fed again by that clone


def test_a_checkout_taken_from_the_copy_keeps_it(tasks: TaskFactory) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    marker = tasks.root / CACHE / f"{NAME}.used"
    old = time.time() - 30 * DAY
    os.utime(marker, (old, old))
    assert _sweep(tasks, time.time()).run() != []  # as it stood, it would go ...

    first, _ = _workspace(tasks, "again")
    first.prepare()  # ... so make it again, mark it old, then use it once more
    os.utime(marker, (old, old))
    second, local = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert local.ran("clone")[0][-2] == str(cache_path(tasks.root, REPO))
    assert _sweep(tasks, time.time() + DAY).run() == []
    assert (tasks.root / CACHE / f"{NAME}.git").is_dir()


def test_checkouts_made_from_a_removed_copy_still_commit_and_push(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    second, local = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert local.ran("clone")[0][-2] == str(cache_path(tasks.root, REPO))
    assert _sweep(tasks, time.time() + 8 * DAY).run() == [NAME]
    (second.path / "greeting.txt").write_text("hi\n")
    sha = second.commit("IMPLEMENT", 1, "greet")
    assert second.push().pushed  # its objects are its own (hard links), not the copy's
    assert fake_github.branch_sha(REPO, f"agentium/issue-{ISSUE + 1}") == sha
    assert _git(second.path, "fsck", "--no-progress") == ""


def test_a_copy_without_a_marker_counts_from_its_newest_part(tmp_path: Path) -> None:
    root = tmp_path / CACHE
    (root / "o__old.git").mkdir(parents=True)
    (root / "o__new.git").mkdir()
    (root / "o__new.spares").mkdir()
    old = time.time() - 10 * DAY
    for name in ("o__old.git", "o__new.git"):
        os.utime(root / name, (old, old))
    sweep = CacheSweep(root, ttl_s=7 * DAY, every_s=300)
    assert sweep.run() == ["o__old"]
    assert sorted(path.name for path in root.iterdir()) == ["o__new.git", "o__new.spares"]


def test_what_a_killed_sweep_set_aside_is_removed_and_links_are_left(tmp_path: Path) -> None:
    root = tmp_path / CACHE
    (root / ".removing-0123").mkdir(parents=True)
    (root / ".removing-0123" / "objects").mkdir()
    elsewhere = tmp_path / "elsewhere.git"
    elsewhere.mkdir()
    (root / "o__link.git").symlink_to(elsewhere)
    old = time.time() - 10 * DAY
    os.utime(elsewhere, (old, old))
    assert CacheSweep(root, ttl_s=DAY, every_s=300).run() == []
    assert sorted(path.name for path in root.iterdir()) == ["o__link.git"]
    assert elsewhere.is_dir()


def test_it_runs_at_most_once_every_period(tmp_path: Path) -> None:
    root = tmp_path / CACHE
    now = [time.time()]
    sweep = CacheSweep(root, ttl_s=DAY, every_s=300, clock=lambda: now[0])
    (root / "o__a.git").mkdir(parents=True)
    os.utime(root / "o__a.git", (now[0] - 2 * DAY, now[0] - 2 * DAY))
    (root / "o__b.git").mkdir()
    assert sweep.maybe_run() == ["o__a"]
    os.utime(root / "o__b.git", (now[0] - 2 * DAY, now[0] - 2 * DAY))
    now[0] += 299
    assert sweep.maybe_run() == []  # too soon
    now[0] += 2
    assert sweep.maybe_run() == ["o__b"]


def test_a_spare_made_as_its_copy_is_swept_is_dropped_quietly(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    sweep = _sweep(tasks, time.time() + 8 * DAY)

    def sweeping(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> GitResult:
        result = run_process(args, cwd, env)
        if "set-url" in args:  # the spare is cloned, not yet moved in place: sweep now
            assert sweep.run() == [NAME]
        return result

    cache = RepoCache(cache_path(tasks.root, REPO), Git(tasks.root, runner=sweeping))
    cache.make_spare("main", (), fake_github.git_url(REPO))
    assert _left(tasks) == []
