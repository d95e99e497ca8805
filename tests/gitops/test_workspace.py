"""The git workspace against real git: the fake GitHub's smart HTTP, and a bare repo on disk."""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import APP_ID, INSTALLATION, ISSUE, REPO, TaskFactory
from workers.engine.leftovers import claim, marker_of
from workers.github.client import GitHubClients
from workers.gitops.hardening import SAFE_CONFIG
from workers.gitops.ready import READY, remove_checkout
from workers.gitops.runner import Git, GitError, GitResult, auth_env, run_process
from workers.gitops.workspace import GitWorkspace, bot_identity, workspace_path

BRANCH = f"agentium/issue-{ISSUE}"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _change(ws: GitWorkspace, text: str) -> None:
    (ws.path / "hello.py").write_text(text)


def test_clone_branch_commit_and_push_as_the_bot(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    ws = tasks.workspace()
    ws.prepare()
    assert _git(ws.path, "rev-parse", "--abbrev-ref", "HEAD") == BRANCH
    assert ws.base_branch() == "main"
    assert ws.commit("IMPLEMENT", 1) is None  # nothing changed
    _change(ws, "print('hello')\n")
    sha = ws.commit("IMPLEMENT", 1, "greet")
    author = _git(ws.path, "log", "-1", "--format=%an <%ae>|%cn")
    assert (
        author == f"agentium[bot] <{APP_ID}+agentium[bot]@users.noreply.github.com>|agentium[bot]"
    )
    message = _git(ws.path, "log", "-1", "--format=%B")
    assert message.startswith("agentium: implement iteration 1 for #22")
    assert "Issue: #22\nPhase: IMPLEMENT\nIteration: 1" in message
    pushed = ws.push()
    assert pushed.pushed and pushed.head_sha == sha and pushed.base_branch == "main"
    assert fake_github.branch_sha(REPO, BRANCH) == sha
    assert not ws.push().pushed  # nothing new


def test_a_fresh_clone_continues_the_pushed_branch(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    first = tasks.workspace("first")
    first.prepare()
    _change(first, "one\n")
    first.commit("IMPLEMENT", 1)
    first.push()
    first.cleanup()
    assert not first.path.exists()
    second = tasks.workspace("second")  # a restarted worker on another machine
    second.prepare()
    assert second.head() == fake_github.branch_sha(REPO, BRANCH)
    _change(second, "two\n")
    second.commit("IMPLEMENT", 2)
    assert second.push().pushed
    log = _git(fake_github.bare_path(REPO), "log", "--format=%s", BRANCH)
    assert log.splitlines()[:2] == [
        "agentium: implement iteration 2 for #22",
        "agentium: implement iteration 1 for #22",
    ]


def test_push_refuses_to_overwrite_commits_it_has_not_seen(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    mine, theirs = tasks.workspace("mine"), tasks.workspace("theirs")
    mine.prepare()
    _change(mine, "mine\n")
    mine.commit("IMPLEMENT", 1)
    mine.push()
    theirs.prepare()
    _change(theirs, "theirs\n")
    theirs.commit("IMPLEMENT", 2)
    theirs.push()
    _change(mine, "mine again\n")
    mine.commit("IMPLEMENT", 2)
    with pytest.raises(GitError, match="push"):
        mine.push()
    assert fake_github.branch_sha(REPO, BRANCH) == theirs.head()


def test_a_push_whose_record_a_kill_lost_is_pushed_over(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    """Killed between `git push` and updating the tracking ref: the next push still works."""
    ws = tasks.workspace()
    ws.prepare()
    _change(ws, "one\n")
    first = ws.commit("IMPLEMENT", 1)
    ws.push()
    _git(ws.path, "update-ref", "-d", f"refs/remotes/origin/{BRANCH}")  # the lost record
    _change(ws, "two\n")
    second = ws.commit("IMPLEMENT", 2)
    assert ws.push().pushed
    assert fake_github.branch_sha(REPO, BRANCH) == second
    assert _git(ws.path, "rev-parse", f"{second}~1") == first


def test_shallow_clone_pushes_with_an_explicit_lease(
    tasks: TaskFactory, fake_github: FakeGitHub, clients: GitHubClients, tmp_path: Path
) -> None:
    def shallow(name: str) -> GitWorkspace:
        return GitWorkspace(
            tmp_path / name,
            fake_github.git_url(REPO),
            ISSUE,
            bot_identity(APP_ID, "agentium"),
            lambda: clients.token(INSTALLATION),
            Git(tmp_path),
            depth=1,
        )

    ws = shallow("a")
    ws.prepare()
    _change(ws, "shallow\n")
    ws.commit("DOCS", 1)
    ws.push()
    again = shallow("b")
    again.prepare()
    _change(again, "shallow 2\n")
    again.commit("DOCS", 2)
    assert again.push().pushed
    assert fake_github.branch_sha(REPO, BRANCH) == again.head()


def test_a_bare_repository_path_works_as_the_remote(tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    seed = tmp_path / "seed"
    subprocess.run(["git", "clone", "-q", str(bare), str(seed)], check=True, capture_output=True)
    (seed / "a.txt").write_text("a\n")
    env = ["-c", "user.name=x", "-c", "user.email=x@example.com"]
    subprocess.run(["git", *env, "add", "a.txt"], cwd=seed, check=True)
    subprocess.run(["git", *env, "commit", "-qm", "a"], cwd=seed, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=seed, check=True)
    ws = GitWorkspace(
        workspace_path(tmp_path, "octo/hello", 5),
        str(bare),
        5,
        bot_identity(1, "agentium"),
        None,
        Git(tmp_path),
    )
    ws.prepare()
    (ws.path / "b.txt").write_text("b\n")
    ws.commit("IMPLEMENT", 1)
    ws.push()
    assert _git(bare, "rev-parse", "agentium/issue-5") == ws.head()
    assert ws.path.name == "octo__hello__5"


def test_the_base_is_the_default_branch_whatever_its_name(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    fake_github.add_repo("octo/trunky", default_branch="release/2.x")
    ws = tasks.workspace("trunky", repo="octo/trunky")
    ws.prepare()
    assert ws.base_branch() == "release/2.x"
    assert _git(ws.path, "config", "user.name") == "agentium[bot]"
    assert _git(ws.path, "rev-parse", "--abbrev-ref", "HEAD") == BRANCH


def test_a_checkout_left_half_made_is_cloned_again(tasks: TaskFactory) -> None:
    first = tasks.workspace()
    first.prepare()
    (first.path / READY).unlink()  # killed before it was complete
    (first.path / "stray.txt").write_text("left over\n")
    again = tasks.workspace()  # the next step's object, on the same path
    again.prepare()
    assert not (again.path / "stray.txt").exists()
    assert (again.path / READY).is_file()


def test_a_checkout_made_before_the_ready_file_is_still_complete(tasks: TaskFactory) -> None:
    """Such a checkout said so in its config; recloning it would lose unpushed commits."""
    first = tasks.workspace()
    first.prepare()
    (first.path / READY).unlink()
    _git(first.path, "config", "agentium.ready", "true")
    (first.path / "unpushed.txt").write_text("work\n")
    again = tasks.workspace()
    again.prepare()
    assert (again.path / "unpushed.txt").exists()


def _spied(tasks: TaskFactory) -> tuple[GitWorkspace, SpyRunner]:
    """The task's workspace at ``ws``, every git command it runs recorded."""
    spy = SpyRunner()
    ws = GitWorkspace(
        tasks.root / "ws", tasks.fake.git_url(REPO), ISSUE, bot_identity(APP_ID, "agentium"),
        lambda: tasks.clients.token(INSTALLATION), Git(tasks.root, runner=spy),
    )  # fmt: skip
    return ws, spy


def _tracking_asks(spy: SpyRunner) -> int:
    return sum(BRANCH in " ".join(argv) and "rev-parse" in argv for argv in spy.argv)


def test_a_complete_checkout_is_known_without_asking_git(tasks: TaskFactory) -> None:
    tasks.workspace().prepare()
    ws, spy = _spied(tasks)
    ws.prepare()
    ws.prepare()
    assert spy.argv == []  # the ready file says so: no git process
    ws.cleanup()
    ws.prepare()  # removed: cloned again
    assert (ws.path / ".git").is_dir()


def test_the_tracking_ref_is_asked_once_between_fetches_and_pushes(
    tasks: TaskFactory, fake_github: FakeGitHub
) -> None:
    ws, spy = _spied(tasks)
    ws.prepare()
    asked = _tracking_asks(spy)
    assert ws.remote_head() is None and ws.pushed_head() is None
    assert _tracking_asks(spy) == asked
    _change(ws, "print('tracked')\n")
    sha = ws.commit("IMPLEMENT", 1)
    assert ws.push().pushed
    spy.argv.clear()
    assert ws.remote_head() == sha == ws.pushed_head() == fake_github.branch_sha(REPO, BRANCH)
    assert not [argv for argv in spy.argv if "rev-parse" in argv]
    other = tasks.workspace("other")  # another step's checkout pushes after this one
    other.prepare()
    _change(other, "print('moved on')\n")
    moved = other.commit("IMPLEMENT", 2)
    other.push()
    ws.sync_to(moved)  # fetches: the tracking ref is asked again
    assert ws.remote_head() == moved != sha


class SpyRunner:
    def __init__(self) -> None:
        self.argv: list[list[str]] = []
        self.envs: list[dict[str, str]] = []

    def __call__(self, args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> GitResult:
        self.argv.append(list(args))
        self.envs.append(dict(env))
        return run_process(args, cwd, env)


def test_the_token_stays_out_of_config_argv_logs_and_errors(
    fake_github: FakeGitHub,
    clients: GitHubClients,
    clock: ManualClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    spy = SpyRunner()
    tokens: list[str] = []

    def token() -> str:
        tokens.append(clients.token(INSTALLATION))
        return tokens[-1]

    ws = GitWorkspace(
        tmp_path / "ws",
        fake_github.git_url(REPO),
        ISSUE,
        bot_identity(APP_ID, "agentium"),
        token,
        Git(tmp_path, spy),
    )
    ws.prepare()
    _change(ws, "secret-free\n")
    ws.commit("IMPLEMENT", 1)
    ws.push()
    secret = tokens[0]
    header = auth_env(secret)["GIT_CONFIG_VALUE_0"]
    assert secret not in (ws.path / ".git" / "config").read_text()
    assert header.split()[-1] not in (ws.path / ".git" / "config").read_text()
    assert all(secret not in arg and header not in arg for argv in spy.argv for arg in argv)
    talking = [
        argv[1 + len(SAFE_CONFIG)]
        for argv, env in zip(spy.argv, spy.envs, strict=True)
        if "GIT_CONFIG_VALUE_0" in env
    ]
    assert talking == ["clone", "push"]  # only the commands that talk to GitHub (the clone
    # brings every branch: no ls-remote for the task's)
    with_token = [env for env in spy.envs if "GIT_CONFIG_VALUE_0" in env]
    assert all(env["GIT_CONFIG_VALUE_0"] == header for env in with_token)
    assert all(
        secret not in r.getMessage() and secret not in str(r.__dict__) for r in caplog.records
    )
    # git's own error text is scrubbed: GitHub refuses an expired token
    clock.advance(2 * 3600)
    fake_github.tokens.clear()
    broken = GitWorkspace(
        tmp_path / "broken",
        fake_github.git_url(REPO),
        ISSUE,
        bot_identity(APP_ID, "agentium"),
        lambda: secret,
        Git(tmp_path),
    )
    with pytest.raises(GitError) as failed:
        broken.prepare()
    assert secret not in str(failed.value) and header not in str(failed.value)


def test_a_git_command_during_a_long_task_gets_a_fresh_token(
    tasks: TaskFactory, fake_github: FakeGitHub, clock: ManualClock
) -> None:
    ws = tasks.workspace()
    ws.prepare()
    clock.advance(3 * 3600)  # the clone's token is long expired
    _change(ws, "later\n")
    ws.commit("DOCS", 1)
    assert ws.push().pushed
    git = [r for r in fake_github.requests if r.auth == "git"]
    assert all(r.status == 200 for r in git)


def test_a_removal_cut_short_leaves_a_checkout_that_is_made_again(
    tasks: TaskFactory, fake_github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed while it removes a checkout: part of .git gone (its config here),
    the rest left. The next step must not take that checkout as complete."""
    ws = tasks.workspace()
    ws.prepare()

    def cut_short(path: Path, ignore_errors: bool = False) -> None:
        (path / ".git" / "config").unlink()  # then the worker died

    with monkeypatch.context() as patched:
        patched.setattr("workers.gitops.ready.shutil.rmtree", cut_short)
        ws.cleanup()
    again = tasks.workspace()
    again.prepare()
    assert _git(again.path, "remote", "get-url", "origin") == fake_github.git_url(REPO)
    assert again.head() == fake_github.branch_sha(REPO, "main")


def test_cleanup_removes_the_wave_checkouts_and_leaves_their_markers(
    tasks: TaskFactory,
) -> None:
    """The subtasks' checkouts sit beside the task's, each with a marker file
    (``<slot>.task``, see ``workers.engine.leftovers``) that the same pattern matches."""
    ws = tasks.workspace()
    ws.prepare()
    slot = ws.path.with_name(f"{ws.path.name}.slot0")
    shutil.copytree(ws.path, slot, symlinks=True)
    claim(slot, "octo/iniconfig#1")
    ws.cleanup()
    assert not ws.path.exists() and not slot.exists()
    assert marker_of(slot).read_text() == "octo/iniconfig#1"  # the sweep forgets it later


def test_removing_a_worktree_checkout_whose_git_is_a_file(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".git").write_text("gitdir: /elsewhere/.git/worktrees/checkout\n")
    remove_checkout(checkout)
    assert not checkout.exists()
