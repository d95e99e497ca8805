"""``agentium local`` end to end: a real repository, the real controller and agents, the
fake Anthropic server answering as the scenario says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.agents.conftest import git
from tests.fakes.anthropic import FakeAnthropic, bad_request
from tests.offline.conftest import BRANCH, branches, commits, script
from workers.offline import local

ROOT = Path(__file__).parent.parent.parent


def test_complex_issue_ends_ready_on_a_new_branch(
    repo: Path, issue_file: Path, llm: FakeAnthropic, env: dict[str, str]
) -> None:
    model = script(llm, "issue-42-complex.yml")
    before = branches(repo)
    argv = ["local", "--repo", str(repo), "--issue-file", str(issue_file)]
    done = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", *argv],
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, done.stderr + out
    assert model.done and not model.errors
    assert branches(repo) == {**before, BRANCH: branches(repo)[BRANCH]}  # main untouched
    assert git(repo, "branch", "--show-current").strip() == "main"
    assert git(repo, "status", "--porcelain") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    made = commits(repo, "main", BRANCH)
    assert made == [
        "Docs iteration 1 for ISSUE.md",
        "Implement iteration 1 for ISSUE.md",
    ]
    assert "── Plan (comment on the issue) ──\n    creates plan" in out
    assert "Assessor verdict: COMPLEX" in out
    assert "Environment: ok in " in out and "(configured)" in out  # before PLAN
    assert out.index("Environment: ok") < out.index("Assessor verdict")
    assert "PLAN iteration 1: judge says ADVANCE → advance (comment on the issue)" in out
    assert "Reviewer feedback:\n        provides feedback on the code" in out
    assert "DOCS iteration 1: judge says ADVANCE → advance (comment on the PR)" in out
    assert f"branch updated: {BRANCH}" in out and "(on GitHub: opens the draft PR)" in out
    assert "Outcome: READY for review" in out
    base = git(repo, "rev-parse", "--short", "main").strip()
    assert f"git log --oneline {base}..{BRANCH}" in out
    assert out.rstrip().endswith(" model call(s)")
    assert "Implement iteration 1 for ISSUE.md\nModel spend: " in out


def test_simple_issue_ends_nomerge(
    repo: Path,
    issue_file: Path,
    llm: FakeAnthropic,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = script(llm, "issue-22-simple.yml")
    main_sha = git(repo, "rev-parse", "main").strip()
    argv = ["--repo", str(repo), "--issue-file", str(issue_file), "--branch", "try/nomerge"]
    assert local.main(argv) == 0
    out = capsys.readouterr().out
    assert model.done and not model.errors
    assert git(repo, "rev-parse", "main").strip() == main_sha
    assert commits(repo, "main", "try/nomerge") == [
        "Docs iteration 1 for ISSUE.md",
        "Implement iteration 2 for ISSUE.md",
        "Implement iteration 1 for ISSUE.md",
    ]
    assert "Assessor verdict: SIMPLE -> ADVANCE" in out
    assert "IMPLEMENT iteration 1: judge says ITERATE → iterate" in out
    assert "IMPLEMENT iteration 2: judge says ITERATE → force_advance" in out
    assert "── NOMERGE: the PR stays a draft (comment on the PR) ──" in out
    assert "Outcome: NOMERGE, a human must review: IMPLEMENT iteration 2: max_iterations" in out
    assert "(on GitHub: the PR auto-updates)" in out


def test_an_agent_that_cannot_be_run_ends_blocked(
    repo: Path,
    issue_file: Path,
    llm: FakeAnthropic,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    llm.push(bad_request())  # not retried: the worker's call fails at once
    assert local.main(["--repo", str(repo), "--issue-file", str(issue_file)]) == 1
    out = capsys.readouterr().out
    assert "── blocked (comment on the issue) ──" in out
    assert "Outcome: BLOCKED: the worker could not be run" in out
    assert f"Branch {BRANCH}" in out and "0 commit(s)" in out
    assert commits(repo, "main", BRANCH) == []


SHORT_IMPLEMENT = """\
task: "local"
settings:
  limits: {SIMPLE: {PLAN: 1, IMPLEMENT: 1, DOCS: 1}}
steps:
  - worker: creates plan
  - assessor: "AGENTIUM_EVAL: SIMPLE"
  - worker: implements changes
  - reviewer: one more test please
  - judge: "AGENTIUM_EVAL: ITERATE add the test"
  - worker: updates documentation
  - reviewer: fine
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""


def test_a_scenario_sets_the_limits(
    tmp_path: Path,
    repo: Path,
    issue_file: Path,
    llm: FakeAnthropic,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "short.yml"
    scenario.write_text(SHORT_IMPLEMENT)
    model = script(llm, str(scenario))
    argv = ["--repo", str(repo), "--issue-file", str(issue_file), "--scenario", str(scenario)]
    assert local.main(argv) == 0
    out = capsys.readouterr().out
    assert model.done and not model.errors
    assert "[IMPLEMENT 1/1] Controller overrides: ADVANCE (max_iterations)" in out
    assert "Judge: add the test" in out
    assert "Outcome: NOMERGE" in out
    assert len(commits(repo, "main", BRANCH)) == 2


def test_a_complex_plan_runs_in_waves_one_commit_each(
    repo: Path, issue_file: Path, llm: FakeAnthropic, env: dict[str, str]
) -> None:
    model = script(llm, "waves-retry-once.yml")
    argv = ["local", "--repo", str(repo), "--issue-file", str(issue_file)]
    done = subprocess.run(
        [sys.executable, "-m", "workers.processes.cli", *argv],
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, done.stderr + out
    assert model.done and not model.errors, model.errors
    assert commits(repo, "main", BRANCH) == [
        "Docs iteration 1 for ISSUE.md",
        "Wave 2: Parser, Formatter",
        "Wave 1: Parser tests, Formatter tests",
    ]
    body = git(repo, "log", "-1", "--format=%b", f"{BRANCH}~1")
    assert "Made by agentium's worker agents for ISSUE.md (subtasks 2a, 2b" in body
    assert "running Wave 1 of 2: subtasks 1a, 1b, one after another" in out
    assert "the changes overlap: The changes of subtask 1b do not apply on top of 1a" in out
    assert "Wave 2 attempt 1 of 2 failed: retrying" in out
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # the subtasks' are gone
    files = git(repo, "ls-tree", "-r", "--name-only", BRANCH).split()
    assert {"WAVE_1a.md", "WAVE_1b.md", "WAVE_2a.md", "WAVE_2b.md"} <= set(files)
