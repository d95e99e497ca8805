"""Nothing an agent leaves in the checkout runs when the bot's own git works there.

The sandbox keeps a checkout's ``.git`` read-only (``test_sandbox_escapes.py``) and the
file tools refuse it; these tests go further and plant what an agent would like to run
straight into the checkout, then let the controller clone, commit, push and sync (the
token in git's environment) and the agents' LocalGit commit and diff: no hook, fsmonitor
or filter runs, and a checkout whose config the bot did not write gets no token.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub
from tests.fakes.github_fixtures import REPO, TaskFactory
from workers.agents.edits import write_file
from workers.agents.workspace import PathRefused, Workspace
from workers.gitops.checkout import LocalGit
from workers.gitops.runner import GitError
from workers.gitops.workspace import GitWorkspace

HOOKS = (
    "pre-push",
    "post-checkout",
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-merge",
    "post-rewrite",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
)


def evil(tmp_path: Path) -> tuple[Path, Path]:
    """A script that records that it ran, and with which environment."""
    marker = tmp_path / "RAN"
    script = tmp_path / "evil.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\nenv >> {marker}\ncat\nexit 0\n')
    script.chmod(0o755)
    return script, marker


def plant_hooks(hooks: Path, script: Path) -> None:
    hooks.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        (hooks / name).write_text(script.read_text())
        (hooks / name).chmod(0o755)


def change(path: Path, text: str) -> None:
    (path / "README.md").write_text(text)


def test_hooks_in_the_checkouts_git_never_run(
    tasks: TaskFactory, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    script, marker = evil(tmp_path)
    ws = tasks.workspace()
    ws.prepare()
    plant_hooks(ws.path / ".git" / "hooks", script)
    change(ws.path, "one\n")
    head = ws.commit("IMPLEMENT", 1)
    assert head is not None and ws.push().pushed
    change(ws.path, "dirty\n")
    ws.sync_to(head)  # fetch, checkout, reset, clean
    LocalGit(ws.path, ws.git, author="a", email="a@example.com").commit_all("agent commit")
    assert fake_github.branch_sha(REPO, ws.branch) == head
    assert not marker.exists(), marker.read_text()


def nested_repository(checkout: Path, name: str, script: Path) -> Path:
    """A repository inside the checkout whose own config runs ``script`` as its clean
    filter, fsmonitor and hooks: what git enters when it asks a nested repo for status."""
    sub = checkout / name
    sub.mkdir()
    (sub / "f.txt").write_text("x\n")
    (sub / ".gitattributes").write_text("* filter=evil\n")
    run = ["git", "-C", str(sub), "-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run([*run, "init", "-q"], check=True)
    subprocess.run([*run, "add", "-A"], check=True)
    subprocess.run([*run, "commit", "-qm", "sub"], check=True)
    for key, value in (
        ("filter.evil.clean", str(script)),
        ("filter.evil.smudge", str(script)),
        ("core.fsmonitor", str(script)),
        ("core.hooksPath", str(checkout / "hooks")),
    ):
        subprocess.run([*run, "config", key, value], check=True)
    plant_hooks(checkout / "hooks", script)
    (sub / "f.txt").write_text("changed\n")
    return sub


def test_a_repository_nested_in_the_checkout_runs_nothing(
    tasks: TaskFactory, fake_github: FakeGitHub, tmp_path: Path
) -> None:
    script, marker = evil(tmp_path)
    ws = tasks.workspace()
    ws.prepare()
    local = LocalGit(ws.path, ws.git, author="a", email="a@example.com")
    commits = {"agent": lambda: local.commit_all("agent"), "bot": lambda: ws.commit("DOCS", 1)}
    for name, commit in commits.items():
        sub = nested_repository(ws.path, name, script)
        assert commit() is not None
        assert not (sub / ".git").exists()  # removed before git looked at it
        assert f"{name}/f.txt" in local.changed_files("HEAD~1", "HEAD")  # kept as files
    ws.push()
    local.diff("HEAD~2")
    ws.sync_to(ws.head())
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("include.path", "../evil.cfg"),
        ("url.http://evil.invalid/.insteadOf", "http://"),
        ("http.proxy", "http://evil.invalid:3128"),
        ("core.hooksPath", "hooks"),
        ("core.sshCommand", "evil"),
        ("credential.helper", "evil"),
    ],
)
def test_a_checkout_whose_config_the_bot_did_not_write_gets_no_token(
    tasks: TaskFactory, fake_github: FakeGitHub, key: str, value: str
) -> None:
    ws = tasks.workspace()
    ws.prepare()
    (ws.path / ".git" / "evil.cfg").write_text(
        '[url "http://evil.invalid/"]\n\tinsteadOf = http://\n'
    )
    subprocess.run(["git", "-C", str(ws.path), "config", key, value], check=True)
    change(ws.path, "one\n")
    ws.commit("IMPLEMENT", 1)
    with pytest.raises(GitError, match="refusing to use credentials"):
        ws.push()
    assert fake_github.branch_sha(REPO, ws.branch) is None


def test_the_file_tools_never_reach_git(tasks: TaskFactory) -> None:
    ws: GitWorkspace = tasks.workspace()
    ws.prepare()
    (ws.path / "h").symlink_to(ws.path / ".git" / "hooks")
    (ws.path / "cfg").symlink_to(ws.path / ".git" / "config")
    tools = Workspace(ws.path)
    for path in (".git/hooks/pre-push", "h/pre-push", "cfg", "./.git/config", "src/../.git/x"):
        with pytest.raises(PathRefused):
            write_file(tools, path, "#!/bin/sh\n")
    assert not (ws.path / ".git" / "hooks" / "pre-push").exists()
