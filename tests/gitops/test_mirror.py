"""Checkouts cloned from the machine's mirror of a repository, against the fake GitHub's
smart HTTP: they behave as clones from GitHub, share nothing with the mirror, and the
mirror follows GitHub (new commits, new and deleted branches) at every use."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import APP_ID, INSTALLATION, ISSUE, REPO, TaskFactory
from workers.gitops.mirror import Mirror, mirror_path
from workers.gitops.runner import Git
from workers.gitops.workspace import GitWorkspace, bot_identity

SLUG = "agentium"
BRANCH = f"agentium/issue-{ISSUE}"


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def mirrored(tasks: TaskFactory, name: str, issue: int = ISSUE) -> GitWorkspace:
    url = tasks.fake.git_url(REPO)
    git = Git(tasks.root)

    def token() -> str:
        return tasks.clients.token(INSTALLATION)

    mirror = Mirror(mirror_path(tasks.root, REPO), url, token, git)
    identity = bot_identity(APP_ID, SLUG)
    return GitWorkspace(tasks.root / name, url, issue, identity, token, git, mirror=mirror)


def test_a_checkout_from_the_mirror_pushes_to_github_and_shares_no_object(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    ws = mirrored(tasks, "ws")
    ws.prepare()
    assert ws.base_branch() == "main"
    assert _git(ws.path, "remote", "get-url", "origin") == fake_github.git_url(REPO)
    assert not (ws.path / ".git" / "objects" / "info" / "alternates").exists()
    mirror = mirror_path(tasks.root, REPO)
    ours = {p.stat().st_ino for p in (ws.path / ".git" / "objects").rglob("*") if p.is_file()}
    theirs = {p.stat().st_ino for p in (mirror / ".git" / "objects").rglob("*") if p.is_file()}
    assert not ours & theirs  # no hard link: the sandbox may hand the checkout to another uid
    (ws.path / "hello.py").write_text("one\n")
    ws.commit("IMPLEMENT", 1)
    assert ws.push().pushed
    assert fake_github.branch_sha(REPO, BRANCH) == ws.head()


def test_the_mirror_follows_github_at_every_use(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first = mirrored(tasks, "first")
    first.prepare()
    (first.path / "hello.py").write_text("one\n")
    first.commit("IMPLEMENT", 1)
    first.push()
    first.cleanup()
    second = mirrored(tasks, "second")  # the pushed branch is continued
    second.prepare()
    assert second.head() == fake_github.branch_sha(REPO, BRANCH)
    bare = fake_github.bare_path(REPO)
    _git(bare, "branch", "-D", BRANCH)  # gone from GitHub: pruned from the mirror
    third = mirrored(tasks, "third")
    third.prepare()
    assert third.remote_head() is None
    assert third.head() == _git(bare, "rev-parse", "main")
