"""The quality gate in ``agentium local`` (docs/design.md §12): a real repository whose test
command, a TAP script, passes on the base commit and fails once the worker's notes are in
the tree. The real controller, agents and sandbox run the scenario
``quality-gate-last-iteration.yml`` and end as the simulator says: the judge's ADVANCE is
not accepted, and on the last iteration the override leaves the PR for a human."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.conftest import git
from tests.e2e.environments import OFFLINE_SETTINGS, SETTINGS
from tests.fakes.anthropic import FakeAnthropic
from tests.offline.conftest import BRANCH, SCENARIOS, commits, script
from workers.offline import local
from workers.offline.simulate import run_scenario

SCENARIO = SCENARIOS / "quality-gate-last-iteration.yml"
TESTS_SH = """\
# The repository's tests, in TAP: the worker's notes must stay out of the tree.
if ls AGENTIUM_NOTES_*.md >/dev/null 2>&1; then
  echo "not ok 1 - notes stay out of the tree"; echo "# pass 0"; echo "# fail 1"; exit 1
fi
echo "ok 1 - notes stay out of the tree"; echo "# pass 1"; echo "# fail 0"
"""
GATE = "Quality gate: 1 test that passed on the base commit fails now: `notes stay out of the tree`"


@pytest.fixture
def tested_repo(repo: Path) -> Path:
    (repo / SETTINGS).write_text(OFFLINE_SETTINGS + "test_command: sh tests.sh\n")
    (repo / "tests.sh").write_text(TESTS_SH)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "tests")
    return repo


def test_a_change_that_breaks_a_passing_test_ends_nomerge_by_the_gate(
    tested_repo: Path,
    issue_file: Path,
    llm: FakeAnthropic,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = script(llm, str(SCENARIO))
    argv = [
        "--repo",
        str(tested_repo),
        "--issue-file",
        str(issue_file),
        "--scenario",
        str(SCENARIO),
    ]
    assert local.main(argv) == 0
    out = capsys.readouterr().out
    assert model.done and not model.errors, out
    simulated = run_scenario(SCENARIO).trace
    assert simulated[1] in out  # "Quality gate: on: `sh tests.sh` on the base commit: 1 passed"
    assert out.index(simulated[1]) < out.index("Assessor verdict")
    assert f"[IMPLEMENT 1/2] {GATE}" in out
    assert "IMPLEMENT iteration 1: judge says ADVANCE → iterate (comment on the PR)" in out
    assert f"[IMPLEMENT 2/2] {GATE}" in out
    assert "[IMPLEMENT 2/2] Controller overrides: ADVANCE (quality_gate)" in out
    assert "Outcome: NOMERGE, a human must review: IMPLEMENT iteration 2: quality_gate" in out
    assert commits(tested_repo, "main", BRANCH) == [
        "Docs iteration 1 for ISSUE.md",
        "Implement iteration 2 for ISSUE.md",
        "Implement iteration 1 for ISSUE.md",
    ]
    # What the real reviewer and judge were shown: the run against the base commit's.
    judged = [r.raw.decode() for r in llm.requests if b"You are the judge" in r.raw]
    assert any("Against it: 1 newly failing (passed on the base commit)" in j for j in judged)
    assert any("notes stay out of the tree" in j for j in judged)


def test_without_a_readable_baseline_there_is_no_gate(
    repo: Path,
    issue_file: Path,
    llm: FakeAnthropic,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The detected pytest is not in this environment (its setup installs nothing): the
    baseline fails without naming a test, so nothing is gated and local mode says so."""
    model = script(llm, "quality-gate-off.yml")  # the judge's ADVANCE holds: no iteration 2
    assert local.main(["--repo", str(repo), "--issue-file", str(issue_file)]) == 0
    out = capsys.readouterr().out
    assert model.done and not model.errors, out
    assert (
        "Quality gate: off: the test command failed on the base commit (exit code 1) "
        "without naming a failing test"
    ) in out
    assert "Quality gate: 1 test" not in out
    assert "Outcome: READY for review" in out
