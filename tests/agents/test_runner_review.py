"""Reviewer, judge and assessor runs: what they see, and what they return."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.agents.conftest import local_git, task_context
from tests.fakes.anthropic import FakeAnthropic, text, tool_use
from workers.agents import wavefiles
from workers.agents.environment import Environment
from workers.agents.runner import AgentRunner
from workers.agents.testcmd import detect_test_command
from workers.controller import signals
from workers.controller.effects import RunAgent, Session, WavePointer
from workers.controller.outcomes import AssessorDone, BudgetExceeded, JudgeDone, ReviewerDone
from workers.controller.phases import JUDGE_VERDICTS, Phase, Role
from workers.controller.spend import Spend
from workers.controller.state import Feedback
from workers.controller.testrun import TestRun


def effect(role: Role, phase: Phase = Phase.IMPLEMENT, **changes: object) -> RunAgent:
    suffix = {Role.REVIEWER: "_REVIEW", Role.JUDGE: "_JUDGE", Role.ASSESSOR: "_COMPLEXITY"}
    values: dict[str, object] = {
        "role": role,
        "phase": phase,
        "iteration": 1,
        "max_iterations": 5,
        "routing_key": f"{phase.value}{suffix.get(role, '')}",
    }
    return RunAgent(**{**values, **changes})  # type: ignore[arg-type]


def test_code_reviewer_sees_diff_tests_and_report_not_tool_noise(
    fake: FakeAnthropic,
    runner: AgentRunner,
    checkout: Path,
    tmp_path: Path,
    environment: Environment,
) -> None:
    task = task_context(checkout, tmp_path / "state", environment=environment)
    fake.push(
        tool_use("run_command", {"command": "echo TOOL-NOISE-0123"}),
        text("Wrote the file. Feedback item 1: addressed."),
    )
    worker = effect(Role.WORKER, routing_key="IMPLEMENT")
    (checkout / "NEWS.txt").write_text("contains\u200b support\n")
    runner.run(worker, task, local_git(checkout))
    fake.push(text("1. Add a test for missing sections."))
    outcome = runner.run(effect(Role.REVIEWER), task, local_git(checkout))

    command = detect_test_command(checkout)
    assert command is not None
    assert outcome == ReviewerDone(
        text="1. Add a test for missing sections.",
        tests=TestRun(command=command, exit_code=0, passed=42),  # for the quality gate
    )
    body = fake.requests[-1].json
    briefing = body["messages"][0]["content"][1]["text"]
    assert "+contains<U+200B> support" in briefing
    assert "complete, " in briefing  # the diff note
    assert "42 passed" in briefing  # the repository's tests ran in the sandbox
    assert "passed (exit code 0): 42 passed" in briefing  # status and figures
    assert "environment was set up" in briefing
    assert "No comparison with the base commit (no quality gate): no baseline was taken." in (
        briefing
    )
    assert "Feedback item 1: addressed." in briefing
    assert "TOOL-NOISE-0123" not in str(body)
    assert [t["name"] for t in body["tools"]] == ["list_files", "glob", "read_file", "search"]


def test_diff_is_capped_with_the_cut_stated(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    (checkout / "big.txt").write_text("x" * 100 + "\n" * 0 + "line\n" * 30_000)
    local_git(checkout).commit_all("big")
    fake.push(text("ok"))
    runner.run(effect(Role.REVIEWER, phase=Phase.DOCS), task, local_git(checkout))
    briefing = fake.requests[0].json["messages"][0]["content"][1]["text"]
    assert "cut: the first 60,000 of " in briefing
    assert len(briefing) < 70_000


def test_plan_reviewer_reviews_the_plan(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("The plan misses tests."))
    task = task_context(checkout, tmp_path / "state")
    outcome = runner.run(effect(Role.REVIEWER, Phase.PLAN), task, local_git(checkout))
    assert outcome == ReviewerDone(text="The plan misses tests.")
    body = fake.requests[0].json
    assert "plan reviewer" in body["system"][0]["text"]
    assert "### Task 2: test it" in body["messages"][0]["content"][1]["text"]


def test_judge_sees_review_goal_directives_and_last_iteration(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state", review="1. Tests fail in test_x.")
    fake.push(text("Tests fail.\nAGENTIUM_EVAL: ITERATE fix the failing test"))
    first = runner.run(effect(Role.JUDGE, max_iterations=2), task, local_git(checkout))
    assert first == JudgeDone(text="Tests fail.\nAGENTIUM_EVAL: ITERATE fix the failing test")
    fake.push(text("Fine now.\nAGENTIUM_EVAL: ADVANCE good"))
    runner.run(effect(Role.JUDGE, iteration=2, max_iterations=2), task, local_git(checkout))

    body = fake.requests[1].json
    stable, variable = (b["text"] for b in body["messages"][0]["content"])
    assert "Judgment" not in stable  # nothing of the phase: shared with the next phase's judge
    assert "The phase's goal" in variable
    assert "1. Tests fail in test_x." in variable
    assert "### Iteration 1" in variable
    assert "ITERATE fix the failing test" in variable
    assert "This is the LAST iteration" in variable
    assert signals.verdict_instruction(JUDGE_VERDICTS) in body["system"][0]["text"]
    assert "tools" not in body or body["tools"] == []


def test_judge_reask_continues_its_conversation_with_the_reminder(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state", review="Looks fine.")
    fake.push(text("I think it is good."), text("AGENTIUM_EVAL: ADVANCE fine"))
    assert runner.run(effect(Role.JUDGE), task, local_git(checkout)) == JudgeDone(
        text="I think it is good."
    )
    again = effect(Role.JUDGE, reask=True, session=Session.CONTINUE)
    assert runner.run(again, task, local_git(checkout)) == JudgeDone(
        text="AGENTIUM_EVAL: ADVANCE fine"
    )
    first, second = (r.json for r in fake.requests)
    assert second["system"] == first["system"]
    assert second["messages"][1]["content"][0]["text"] == "I think it is good."
    reminder = second["messages"][2]["content"][0]["text"]
    assert reminder == signals.verdict_reminder(JUDGE_VERDICTS)


def test_empty_judge_answer_is_no_signal(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text(""))
    task = task_context(checkout, tmp_path / "state")
    assert runner.run(effect(Role.JUDGE), task, local_git(checkout)) == JudgeDone(text=None)


def test_assessor_sees_the_plan(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("Two files.\nAGENTIUM_EVAL: SIMPLE small"))
    task = task_context(checkout, tmp_path / "state")
    outcome = runner.run(effect(Role.ASSESSOR, Phase.PLAN), task, local_git(checkout))
    assert outcome == AssessorDone(text="Two files.\nAGENTIUM_EVAL: SIMPLE small")
    body = fake.requests[0].json
    assert body["model"] == "claude-sonnet-5-5"
    assert "### Task 1: add it" in body["messages"][0]["content"][1]["text"]
    assert "SIMPLE|COMPLEX" in body["system"][0]["text"]


def test_exceeded_budget_ends_the_task_with_the_figures(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    spent = Spend(input_tokens=40_000_000, cost_usd=12.5, seconds=60, calls=9)
    (state / "spend.json").write_text(spent.model_dump_json())
    outcome = runner.run(effect(Role.REVIEWER), task_context(checkout, state), local_git(checkout))
    assert isinstance(outcome, BudgetExceeded)
    assert outcome.role is Role.REVIEWER
    assert "budget exceeded: tokens 40,000,000 of 30,000,000" in outcome.detail
    assert fake.requests == []


def test_spend_is_recorded_per_call(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("AGENTIUM_EVAL: ADVANCE ok"))
    task = task_context(checkout, tmp_path / "state")
    runner.run(effect(Role.JUDGE), task, local_git(checkout))
    spent = Spend.model_validate_json((tmp_path / "state" / "spend.json").read_text())
    assert spent.calls == 1
    assert spent.input_tokens + spent.cache_write_tokens > 0
    assert spent.cost_usd > 0
    [(model, figures)] = spent.by_model.items()  # the ledger knows which model spent it
    assert model and figures.calls == 1 and figures.cost_usd == spent.cost_usd


def test_the_reviewer_gets_the_feedback_the_worker_had_to_answer(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    earlier = Feedback(review="1. Handle a missing section.\n2. Add a docstring.", judge="fix 1")
    fake.push(text("1. addressed: returns False now. 2. declined: the module has none."))
    worker = effect(Role.WORKER, iteration=2, routing_key="IMPLEMENT", feedback=earlier)
    runner.run(worker, task, local_git(checkout))
    fake.push(text("1. The docstring was declined with a reason; fine."))
    runner.run(effect(Role.REVIEWER, iteration=2), task, local_git(checkout))
    variable = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    section = variable.split("## The feedback the worker had to answer (on iteration 1)")[1]
    assert "1. Handle a missing section." in section and "fix 1" in section
    assert "(with its answers to that feedback)" in section
    assert "2. declined: the module has none." in section
    assert "Check each\nanswer of the worker to the earlier feedback" in variable

    fake.push(text("ok"))
    runner.run(effect(Role.REVIEWER, iteration=1), task, local_git(checkout))
    first = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "The feedback the worker had to answer" not in first


FAILING = "def test_planted() -> None:\n    assert 1 + 1 == 3\n"


def test_the_judge_sees_the_test_counts_the_reviewer_saw(
    fake: FakeAnthropic,
    runner: AgentRunner,
    checkout: Path,
    tmp_path: Path,
    environment: Environment,
) -> None:
    task = task_context(checkout, tmp_path / "state", environment=environment)
    (checkout / "testing" / "test_planted.py").write_text(FAILING)
    local_git(checkout).commit_all("a failing test")
    fake.push(text("1. test_planted fails."))
    runner.run(effect(Role.REVIEWER), task, local_git(checkout))
    review = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "failed (exit code 1): 1 failed, 42 passed" in review
    assert "testing/test_planted.py::test_planted" in review
    fake.push(text("AGENTIUM_EVAL: ITERATE fix test_planted"))
    judged = task_context(checkout, tmp_path / "state", environment=environment, review="1. x")
    runner.run(effect(Role.JUDGE), judged, local_git(checkout))
    variable = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "## The repository's tests on this iteration" in variable
    assert "failed (exit code 1): 1 failed, 42 passed" in variable
    assert "testing/test_planted.py::test_planted" in variable
    assert "environment was set up" in variable


def test_a_failed_environment_is_told_to_the_agents(
    fake: FakeAnthropic,
    runner: AgentRunner,
    checkout: Path,
    tmp_path: Path,
    environment: Environment,
) -> None:
    failed = replace(
        environment,
        outcome=environment.outcome.model_copy(
            update={"ok": False, "exit_code": 1, "tail": "ERROR: No matching distribution found"}
        ),
    )
    task = task_context(checkout, tmp_path / "state", environment=failed, plan=None)
    fake.push(text("The plan."))
    runner.run(effect(Role.WORKER, Phase.PLAN, routing_key="PLAN"), task, local_git(checkout))
    plan_context = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "could NOT be set up" in plan_context
    assert "ERROR: No matching distribution found" in plan_context
    fake.push(text("1. Looks fine."))
    runner.run(effect(Role.REVIEWER), task, local_git(checkout))
    review = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    assert "could NOT be set up" in review
    assert "42 passed" in review  # the test command's result says what it says


def test_a_retried_waves_reviewer_gets_the_feedback_that_failed_its_previous_attempt(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    failed = Feedback(review="1. The tests for 1b import a missing module.", judge="retry")
    wavefiles.write_feedback(state, 1, 1, failed)
    task = task_context(checkout, state)
    start = task.base_sha  # the wave's diff is taken against its starting commit
    wave = WavePointer(1, 2, 2, 2, ("1a", "1b"), start_commit=start)
    fake.push(text("1. Fixed now."), text("ok"))
    runner.run(effect(Role.REVIEWER, wave=wave), task, local_git(checkout))
    variable = fake.requests[-1].json["messages"][0]["content"][1]["text"]
    heading = "## The feedback the worker had to answer (on wave 1, attempt 1)"
    assert heading in variable
    assert "1. The tests for 1b import a missing module." in variable.split(heading)[1]

    first = WavePointer(1, 2, 1, 2, ("1a", "1b"), start_commit=start)
    runner.run(effect(Role.REVIEWER, wave=first), task, local_git(checkout))
    assert "had to answer" not in fake.requests[-1].json["messages"][0]["content"][1]["text"]
