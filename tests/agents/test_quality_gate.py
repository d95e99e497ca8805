"""The baseline and the quality gate on a real checkout (docs/design.md §12): the test
command runs once on the base commit in the task's environment; a worker's change that
breaks a test passing there reaches the reviewer and the judge as "newly failing", and the
judge's ADVANCE is turned into ITERATE by the real controller; once the test passes again
the ADVANCE holds. Only the model is a fake."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from tests.agents.conftest import (
    git,
    local_git,
    needs_bwrap,
    stock_sandbox_settings,
    task_context,
)
from tests.fakes.anthropic import FakeAnthropic, text, tool_use
from workers.agents.environment import Environment
from workers.agents.runner import AgentRunner
from workers.agents.sandbox import open_sandbox
from workers.agents.task import TaskContext
from workers.agents.testcmd import detect_test_command
from workers.controller import gate
from workers.controller.limits import Limits, WorkflowConfig
from workers.controller.moves import Transition
from workers.controller.outcomes import AssessorDone, ReviewerDone, Start, WorkerDone
from workers.controller.phases import Phase, Role
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import pending_agent, step

NOW = datetime(2025, 1, 1, tzinfo=UTC)
GOOD = "        yield from sorted(section, key=lineof)\n"
BAD = "        yield from sorted(section)\n"  # file order lost: test_example_pypirc fails
BROKEN = "testing/test_iniconfig.py::test_example_pypirc"


def edit(old: str, new: str) -> object:
    path = "src/iniconfig/__init__.py"
    return tool_use("edit_file", {"path": path, "old_string": old, "new_string": new})


class Task:
    """The real controller answered by the real agents on ``checkout``."""

    def __init__(self, runner: AgentRunner, checkout: Path, state_dir: Path, env: Environment):
        self.runner, self.checkout, self.limits = runner, checkout, Limits()
        base = git(checkout, "rev-parse", "HEAD").strip()
        self.context: Callable[[WorkflowState], TaskContext] = lambda state: TaskContext.from_state(
            state,
            WorkflowConfig(),
            issue_number=7,
            issue_title="Keep keys in file order",
            issue_body="Iterating a section should give its keys.",
            checkout=checkout,
            state_dir=state_dir,
            base_sha=base,
            environment=env,
        )

    def start(self) -> Transition:
        baseline = self.runner.baseline(self.context(WorkflowState()), local_git(self.checkout))
        state = step(WorkflowState(), Start(baseline=baseline), self.limits, now=NOW).state
        for outcome in (WorkerDone("The plan."), AssessorDone("AGENTIUM_EVAL: SIMPLE")):
            state = step(state, outcome, self.limits, now=NOW).state
        return Transition(state)

    def answer(self, transition: Transition) -> Transition:
        effect = pending_agent(transition.state, self.limits)
        assert effect is not None
        git_ = local_git(self.checkout)
        outcome = self.runner.run(effect, self.context(transition.state), git_)
        return step(transition.state, outcome, self.limits, now=NOW)


def test_the_baseline_is_the_base_commits_run(
    runner: AgentRunner, checkout: Path, tmp_path: Path, environment: Environment
) -> None:
    task = task_context(checkout, tmp_path / "state", environment=environment)
    baseline = runner.baseline(task, local_git(checkout))
    assert baseline == TestRun(command=detect_test_command(checkout) or "", exit_code=0, passed=42)


def test_what_the_baseline_run_writes_into_the_checkout_is_discarded(
    runner: AgentRunner, checkout: Path, tmp_path: Path, environment: Environment
) -> None:
    messy = "echo x > LEFTOVER.txt && echo y >> README.rst && mkdir -p out && touch out/f && exit 3"
    task = task_context(checkout, tmp_path / "state", environment=environment, test_command=messy)
    head = git(checkout, "rev-parse", "HEAD")
    baseline = runner.baseline(task, local_git(checkout))
    assert (baseline.command, baseline.exit_code, baseline.failing) == (messy, 3, ())
    assert git(checkout, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(checkout, "rev-parse", "HEAD") == head


def test_a_repository_without_a_test_command_has_an_empty_baseline(
    runner: AgentRunner, tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "README.md").write_text("nothing to test\n")
    subprocess.run(["git", "-C", str(bare), "init", "-q"], check=True)
    git(bare, "add", "-A")
    git(bare, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    task = task_context(bare, tmp_path / "state", plan=None)
    assert runner.baseline(task, local_git(bare)) == TestRun(command="")


def test_a_change_that_breaks_a_passing_test_is_held_until_it_passes_again(
    fake: FakeAnthropic,
    runner: AgentRunner,
    checkout: Path,
    tmp_path: Path,
    environment: Environment,
) -> None:
    task = Task(runner, checkout, tmp_path / "state", environment)
    t = task.start()
    assert t.state.baseline is not None and t.state.baseline.passed == 42

    fake.push(edit(GOOD, BAD), text("Sorted the keys."))
    t = task.answer(t)  # the worker commits the change
    fake.push(text("1. The change is small and clear."))
    t = task.answer(t)
    review = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "Against it: 1 newly failing (passed on the base commit)" in review
    assert f'<untrusted-data source="tests newly failing">\n```\n{BROKEN}\n```' in review
    assert t.state.tests is not None and t.state.tests.failing == (BROKEN,)

    fake.push(text("Clean change.\nAGENTIUM_EVAL: ADVANCE done"))
    t = task.answer(t)
    judge = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "## Facts of this iteration (measured by the bot" in judge
    assert "### Files changed against the base commit" in judge
    assert "src/iniconfig/__init__.py | 2 +-" in judge
    assert "failed (exit code 1): 1 failed, 41 passed" in judge
    assert "On the base commit: `PYTHONPATH=src python -m pytest" in judge
    assert f'<untrusted-data source="tests newly failing">\n```\n{BROKEN}\n```' in judge
    assert "1. The change is small and clear." in judge  # the reviewer's text

    # The controller did not accept the ADVANCE: IMPLEMENT again, the test as feedback.
    assert (t.state.phase, t.state.iteration) == (Phase.IMPLEMENT, 2)
    said = [h.summary for h in t.state.history if h.role is Role.CONTROLLER]
    assert said[-1] == f"Quality gate: 1 test that passed on the base commit fails now: `{BROKEN}`"
    fake.push(edit(BAD, GOOD), text("Restored the file order."))
    t = task.answer(t)
    worker = fake.requests[-2].json["messages"][-1]["content"][0]["text"]
    assert "### Tests that passed on the base commit and fail on your change" in worker
    assert f'<untrusted-data source="the tests">\n```\n{BROKEN}\n```' in worker
    assert "it gave: `PYTHONPATH=src python -m pytest -q -p no:cacheprovider`: passed" in worker

    fake.push(text("1. Fine."))
    t = task.answer(t)
    assert isinstance(t.state.tests, TestRun) and t.state.tests.ok
    fake.push(text("AGENTIUM_EVAL: ADVANCE fixed"))
    t = task.answer(t)
    assert (t.state.phase, t.state.iteration) == (Phase.DOCS, 1)
    assert not t.state.controller_overrode


def test_docs_reviewers_run_no_tests_and_report_none(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    from tests.agents.test_runner_review import effect

    fake.push(text("Docs fine."))
    task = task_context(checkout, tmp_path / "state")
    outcome = runner.run(effect(Role.REVIEWER, Phase.DOCS), task, local_git(checkout))
    assert outcome == ReviewerDone(text="Docs fine.", tests=None)


def test_the_docs_worker_is_told_the_test_command_and_the_baseline(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    from workers.controller.effects import RunAgent

    fake.push(text("Documented."))
    baseline = TestRun(command="make check", exit_code=1, passed=3, failed=1, failing=("t::x",))
    task = task_context(checkout, tmp_path / "state", test_command="make check", baseline=baseline)
    docs = RunAgent(
        role=Role.WORKER, phase=Phase.DOCS, iteration=1, max_iterations=1, routing_key="DOCS"
    )
    runner.run(docs, task, local_git(checkout))
    variable = fake.requests[0].json["messages"][0]["content"][1]["text"]
    assert "## The repository's test command\n\n`make check` (configured). Run it" in variable
    assert (
        "On the base commit, before any change, it gave: `make check`: failed (exit code 1): "
        "1 failed, 3 passed.\n"
    ) in variable  # DOCS is not gated: no word of it


@needs_bwrap
def test_a_baseline_that_cannot_run_turns_the_gate_off(
    runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    """A checkout the sandbox refuses to bind: the baseline did not run (no exception)."""
    hiding = replace(
        runner.deps,
        sandbox=open_sandbox(stock_sandbox_settings(), hidden=[checkout]),
    )
    task = task_context(checkout, tmp_path / "state", test_command="true")
    baseline = AgentRunner(hiding).baseline(task, local_git(checkout))
    assert baseline == TestRun(command="true", exit_code=None)
    assert gate.status_line(baseline).startswith("off: the test command did not finish")
