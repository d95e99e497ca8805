"""Checkouts cloned from the machine's copy of the repository, against real git: the fake
GitHub's smart HTTP as the remote, the copy a bare repository on disk."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import APP_ID, INSTALLATION, ISSUE, REPO, SLUG, TaskFactory
from workers.github.heads import remote_heads
from workers.github.refs import IssueRef
from workers.gitops.cache import RemoteHeads, RepoCache, cache_path
from workers.gitops.runner import Git, GitResult, run_process
from workers.gitops.workspace import GitWorkspace, bot_identity


class Recording:
    """The real git runner, remembering every command's arguments after SAFE_CONFIG."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> GitResult:
        self.commands.append([a for a in args[1:] if not a.startswith("-c") and "=" not in a])
        return run_process(args, cwd, env)

    def ran(self, command: str) -> list[list[str]]:
        return [args for args in self.commands if command in args]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _workspace(tasks: TaskFactory, name: str, issue: int = ISSUE) -> tuple[GitWorkspace, Recording]:
    recording = Recording()
    git = Git(tasks.root, runner=recording)
    gh, ref = tasks.clients.installation(INSTALLATION), IssueRef.parse(REPO, issue)
    workspace = GitWorkspace(
        tasks.root / name,
        tasks.fake.git_url(REPO),
        issue,
        bot_identity(APP_ID, SLUG),
        lambda: tasks.clients.token(INSTALLATION),
        git,
        cache=RepoCache(cache_path(tasks.root, REPO), git),
        heads=lambda: remote_heads(gh, ref, f"agentium/issue-{issue}"),
    )
    return workspace, recording


def _push_to_main(fake: FakeGitHub, root: Path) -> str:
    """Somebody else moves the remote's default branch."""
    other = root / "someone-else"
    subprocess.run(["git", "clone", "-q", str(fake.bare_path(REPO)), str(other)], check=True)
    (other / "NEWS.md").write_text("news\n")
    _git(other, "add", "NEWS.md")
    _git(other, "-c", "user.name=Octo", "-c", "user.email=o@example.com", "commit", "-qm", "news")
    _git(other, "push", "-q", "origin", "HEAD:main")
    return _git(other, "rev-parse", "HEAD")


def test_the_second_checkout_comes_from_the_copy_at_the_remotes_commit(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, network = _workspace(tasks, "first")
    first.prepare()
    assert network.ran("clone") and network.ran("clone")[0][-2] == fake_github.git_url(REPO)
    cache = RepoCache(cache_path(tasks.root, REPO), Git(tasks.root))
    assert cache.branch() == "main"
    assert _git(cache.path, "rev-parse", "main") == fake_github.branch_sha(REPO, "main")

    second, local = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    [clone] = local.ran("clone")
    assert clone[-2] == str(cache.path)  # no network clone, one question to GitHub
    assert len(fake_github.calls("POST", "/graphql")) == 1  # the first had no copy to check
    assert second.head() == fake_github.branch_sha(REPO, "main")
    assert second.base_branch() == "main"
    assert _git(second.path, "rev-parse", "--abbrev-ref", "HEAD") == f"agentium/issue-{ISSUE + 1}"
    assert _git(second.path, "remote", "get-url", "origin") == fake_github.git_url(REPO)
    assert second.remote_head() is None
    (second.path / "greeting.txt").write_text("hi\n")
    sha = second.commit("IMPLEMENT", 1, "greet")
    assert second.push().pushed  # pushes to GitHub, not to the copy
    assert fake_github.branch_sha(REPO, f"agentium/issue-{ISSUE + 1}") == sha
    assert _git(cache.path, "branch", "--list") == "* main"


def test_a_moved_default_branch_is_cloned_from_the_remote_and_refreshes_the_copy(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    _workspace(tasks, "first")[0].prepare()
    moved = _push_to_main(fake_github, tasks.root)
    second, recording = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert second.head() == moved
    assert recording.ran("clone")[-1][-2] == fake_github.git_url(REPO)
    assert _git(cache_path(tasks.root, REPO), "rev-parse", "main") == moved
    third, recording = _workspace(tasks, "third", issue=ISSUE + 2)
    third.prepare()
    assert third.head() == moved
    assert [args[-2] for args in recording.ran("clone")] == [str(cache_path(tasks.root, REPO))]


def test_a_pushed_task_branch_is_continued_from_the_remote(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    (first.path / "one.txt").write_text("one\n")
    pushed = first.commit("IMPLEMENT", 1)
    first.push()
    first.cleanup()
    again, recording = _workspace(tasks, "again")  # the same task on another checkout
    again.prepare()
    assert again.head() == pushed and again.remote_head() == pushed
    assert recording.ran("clone")[-1][-2] == fake_github.git_url(REPO)


def test_a_broken_copy_is_not_used(tasks: TaskFactory, fake_github: FakeGitHub) -> None:
    _workspace(tasks, "first")[0].prepare()
    cache = cache_path(tasks.root, REPO)
    (cache / "refs" / "heads" / "main").unlink(missing_ok=True)
    (cache / "packed-refs").unlink(missing_ok=True)
    second, recording = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert second.head() == fake_github.branch_sha(REPO, "main")
    assert recording.ran("clone")[-1][-2] == fake_github.git_url(REPO)
    assert _git(cache, "rev-parse", "main") == fake_github.branch_sha(REPO, "main")  # fed again


def test_a_copy_ahead_of_the_remote_is_not_trusted(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    """A copy holding a commit the remote does not have (say, written by hand) is refused."""
    _workspace(tasks, "first")[0].prepare()
    cache = cache_path(tasks.root, REPO)
    elsewhere = _push_to_main(fake_github, tasks.root)
    subprocess.run(["git", "update-ref", "refs/heads/main", elsewhere], cwd=cache, check=False)
    _git(fake_github.bare_path(REPO), "update-ref", "refs/heads/main", f"{elsewhere}~1")
    second, _ = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert second.head() == fake_github.branch_sha(REPO, "main") != elsewhere


def test_when_github_cannot_say_the_checkout_comes_over_the_network(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    _workspace(tasks, "first")[0].prepare()
    fake_github.fail(502, method="POST", path="/graphql", times=10)
    second, recording = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert second.head() == fake_github.branch_sha(REPO, "main")
    assert recording.ran("clone")[-1][-2] == fake_github.git_url(REPO)


def test_github_names_the_default_branch_its_commit_and_the_task_branch(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    gh = tasks.clients.installation(INSTALLATION)
    main = fake_github.branch_sha(REPO, "main")
    assert main is not None
    asked = remote_heads(gh, IssueRef.parse(REPO, ISSUE), f"agentium/issue-{ISSUE}")
    assert asked == RemoteHeads("main", main, None)
    first, _ = _workspace(tasks, "first")
    first.prepare()
    (first.path / "one.txt").write_text("one\n")
    pushed = first.commit("IMPLEMENT", 1)
    first.push()
    asked = remote_heads(gh, IssueRef.parse(REPO, ISSUE), f"agentium/issue-{ISSUE}")
    assert asked == RemoteHeads("main", main, pushed)
    assert remote_heads(gh, IssueRef.parse("octo/missing", ISSUE), "x") is None


def _spares(tasks: TaskFactory) -> list[Path]:
    spares = cache_path(tasks.root, REPO).with_name("octo__hello.spares")
    return sorted(p for p in spares.glob("*") if not p.name.startswith("."))


def test_a_spare_checkout_is_taken_by_the_next_task_instead_of_a_clone(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    first.leave_spare()
    first.leave_spare()  # one is enough
    assert len(_spares(tasks)) == 1
    second, recording = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert not recording.ran("clone") and _spares(tasks) == []
    assert second.head() == fake_github.branch_sha(REPO, "main")
    assert _git(second.path, "rev-parse", "--abbrev-ref", "HEAD") == f"agentium/issue-{ISSUE + 1}"
    assert _git(second.path, "remote", "get-url", "origin") == fake_github.git_url(REPO)
    assert second.base_branch() == "main"
    (second.path / "greeting.txt").write_text("hi\n")
    second.commit("IMPLEMENT", 1)
    assert second.push().pushed


def test_a_spare_no_longer_current_is_thrown_away(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first, _ = _workspace(tasks, "first")
    first.prepare()
    first.leave_spare()
    moved = _push_to_main(fake_github, tasks.root)
    second, _ = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert second.head() == moved
    assert _spares(tasks) == []


def test_a_spare_made_for_another_identity_is_left_alone(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    _workspace(tasks, "first")[0].prepare()
    cache = RepoCache(cache_path(tasks.root, REPO), Git(tasks.root))
    someone = ("user.name=someone[bot]", "user.email=x@example.com", "agentium.base=main")
    cache.make_spare("main", someone, fake_github.git_url(REPO))
    second, recording = _workspace(tasks, "second", issue=ISSUE + 1)
    second.prepare()
    assert recording.ran("clone") and len(_spares(tasks)) == 1
    assert _git(second.path, "config", "user.name") == f"{SLUG}[bot]"
