"""What ``agentium local`` refuses before it touches anything, and the issue file's format."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.agents.conftest import git
from tests.offline.conftest import BRANCH, branches
from workers.gitops.runner import Git
from workers.offline import local
from workers.offline.local import repo_config
from workers.offline.local_repo import LocalError, open_repo, read_issue, slug


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert local.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    return captured.err


def test_a_missing_key_is_named(
    repo: Path,
    issue_file: Path,
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert "ANTHROPIC_API_KEY" in err
    assert BRANCH not in branches(repo)


def test_without_bubblewrap_nothing_starts(
    repo: Path,
    issue_file: Path,
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tools = tmp_path / "bin"  # git, but no bubblewrap
    tools.mkdir()
    (tools / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    monkeypatch.setenv("PATH", str(tools))
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert err.startswith("agentium local: bubblewrap") and "apt-get install bubblewrap" in err
    assert BRANCH not in branches(repo)


def test_a_dirty_tree_is_refused(
    repo: Path, issue_file: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "README.md").write_text("changed\n")
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert "is dirty (README.md)" in err and "commit or stash" in err
    assert list(branches(repo)) == ["main"]
    assert git(repo, "worktree", "list").count("\n") == 1


def test_a_directory_that_is_not_a_repository_is_refused(
    tmp_path: Path, issue_file: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    err = refused(["--repo", str(plain), "--issue-file", str(issue_file)], capsys)
    assert "is not a git repository" in err


def test_an_existing_branch_is_left_alone(
    repo: Path, issue_file: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo, "branch", BRANCH)
    before = branches(repo)
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert f"branch {BRANCH} already exists" in err
    assert branches(repo) == before


def test_a_data_dir_inside_the_repository_is_refused(
    repo: Path,
    issue_file: Path,
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATA_DIR", str(repo / ".data"))
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert "DATA_DIR" in err and "inside the repository" in err
    assert list(branches(repo)) == ["main"]


def test_the_first_heading_is_the_title(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    path.write_text("Some preface.\n\n## Fix the parser ##\n\nIt fails on `[a b]`.\n")
    issue = read_issue(path)
    assert issue.title == "Fix the parser"
    assert issue.body == "Some preface.\n\n\nIt fails on `[a b]`."
    assert slug(issue.title) == "fix-the-parser"
    assert slug("Ünïcode only!!") == "n-code-only"
    assert slug("???") == "issue"


def test_an_issue_file_without_a_heading_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    path.write_text("no heading here\n")
    with pytest.raises(LocalError, match="no markdown heading"):
        read_issue(path)


def commit_settings(repo: Path, text: str) -> None:
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "agentium.yml").write_text(text)
    git(repo, "add", ".github")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "settings")


def test_the_repository_settings_apply_under_the_scenario_limits(
    tmp_path: Path, repo: Path
) -> None:
    commit_settings(repo, "limits: {SIMPLE: {IMPLEMENT: 3}}\ntest_command: make check\n")
    opened = open_repo(repo, Git(tmp_path / "git-home"))
    config = repo_config(opened, opened.head(), None)
    assert config.limits.SIMPLE.IMPLEMENT == 3 and config.test_command == "make check"
    scenario = tmp_path / "limits.yml"
    scenario.write_text("task: t\nsettings: {limits: {SIMPLE: {PLAN: 1, IMPLEMENT: 1, DOCS: 1}}}\n")
    scenario.write_text(scenario.read_text() + "steps:\n  - worker: plan\n")
    config = repo_config(opened, opened.head(), scenario)
    assert config.limits.SIMPLE.IMPLEMENT == 1 and config.test_command == "make check"


def test_invalid_repository_settings_are_refused(
    repo: Path, issue_file: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    commit_settings(repo, "limits: {SIMPLE: {IMPLEMENT: 0}}\n")
    err = refused(["--repo", str(repo), "--issue-file", str(issue_file)], capsys)
    assert "`.github/agentium.yml` line 1: limits.SIMPLE.IMPLEMENT" in err
    assert BRANCH not in branches(repo)
