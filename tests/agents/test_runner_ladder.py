"""The recovery ladder's calls as the agents make them (docs/design.md §9): the doctor's and
the replanner's prompts, what a worker is told, the routes, infrastructure failures."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.agents.conftest import local_git, task_context
from tests.agents.test_runner_review import effect
from tests.fakes.anthropic import FakeAnthropic, bad_request, overloaded, text
from workers.agents.runner import AgentRunner
from workers.controller.anchor import Anchor
from workers.controller.failures import Failure, FailureKind
from workers.controller.guidance import Guidance
from workers.controller.outcomes import AgentFailed, DoctorDone, ReplanDone, WorkerDone
from workers.controller.phases import Phase, Role
from workers.controller.routing import parse_routing
from workers.controller.state import Feedback

ANCHOR = Anchor(title="Support `in` on sections", digest="0123abcd", goal="`in` works on sections")
FAILURES = (
    Failure.of(FailureKind.TESTS, Phase.IMPLEMENT, 1, "fix it", ["testing/t.py::test_in"]),
    Failure.of(FailureKind.JUDGE, Phase.IMPLEMENT, 2, "the membership test is still wrong"),
)


def prompt_text(fake: FakeAnthropic) -> str:
    body = fake.requests[-1].json
    return "\n".join(block["text"] for block in body["messages"][0]["content"])


def system_text(fake: FakeAnthropic) -> str:
    system = fake.requests[-1].json["system"]
    return system if isinstance(system, str) else " ".join(b["text"] for b in system)


def test_the_doctor_gets_the_anchor_and_the_failures_and_answers(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    guidance = Guidance(anchor=ANCHOR, failures=FAILURES, budgets="1 of 10 doctor calls")
    fake.push(text("Diagnosis.\nAGENTIUM_DOCTOR: retry_with_fix compare keys with `in`"))
    doctor = effect(Role.DOCTOR, iteration=2, routing_key="DOCTOR", guidance=guidance)
    outcome = runner.run(doctor, task, local_git(checkout))
    assert isinstance(outcome, DoctorDone) and outcome.text is not None
    assert "retry_with_fix compare keys" in outcome.text
    assert system_text(fake).startswith("You are the doctor")
    assert "AGENTIUM_DOCTOR: retry_with_fix|replan|fatal|rollback_provider" in system_text(fake)
    briefing = prompt_text(fake)
    assert "Hard constraint: the goal (change HOW, never WHAT)" in briefing
    assert "`in` works on sections" in briefing and "sha256 `0123abcd`" in briefing
    assert "failing tests: testing/t.py::test_in" in briefing
    assert "2. IMPLEMENT iteration 2 (judge):" in briefing
    assert "1 of 10 doctor calls" in briefing
    assert fake.requests[-1].json.get("tools") in (None, [])


def test_the_replanner_gets_the_plan_anchor_failures_and_read_tools(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    fake.push(text("The approach fails because ...\n1. Use `__contains__`."))
    guidance = Guidance(anchor=ANCHOR, failures=FAILURES)
    replanner = effect(Role.REPLANNER, iteration=3, routing_key="REPLAN", guidance=guidance)
    outcome = runner.run(replanner, task, local_git(checkout))
    assert outcome == ReplanDone(text="The approach fails because ...\n1. Use `__contains__`.")
    assert system_text(fake).startswith("You are the replanner")
    briefing = prompt_text(fake)
    assert "### Task 1: add it" in briefing and "(it stays as it is)" in briefing
    assert "Do not reduce the scope" in briefing and "testing/t.py::test_in" in briefing
    tools = [t["name"] for t in fake.requests[-1].json["tools"]]
    assert tools == ["list_files", "glob", "read_file", "search"]


def test_the_worker_is_told_the_approach_hint_answer_and_scope(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    guidance = Guidance(
        approach="Use a set of keys.",
        hint="Run the membership tests first.",
        answer="@alice answered:\nKeys are case-sensitive.",
        reduce_scope=True,
    )
    fake.push(text("Done.\nAGENTIUM_SCOPE_CUT: case-insensitive keys"))
    worker = effect(Role.WORKER, iteration=4, routing_key="IMPLEMENT", guidance=guidance,
                    feedback=Feedback(review="1. wrong", judge="fix it"))  # fmt: skip
    outcome = runner.run(worker, task, local_git(checkout))
    assert isinstance(outcome, WorkerDone) and "AGENTIUM_SCOPE_CUT" in outcome.text
    briefing = prompt_text(fake)
    assert "## The revised approach for this phase" in briefing and "Use a set of keys." in briefing
    assert "Run the membership tests first." in briefing
    assert "Keys are case-sensitive." in briefing and "a person's answer" in briefing
    assert "## Reduce the scope" in briefing and "AGENTIUM_SCOPE_CUT: <what" in briefing


def test_the_judge_sees_the_anchor(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    fake.push(text("AGENTIUM_EVAL: ADVANCE fine"))
    judge = effect(Role.JUDGE, guidance=Guidance(anchor=ANCHOR))
    runner.run(judge, task, local_git(checkout))
    assert "`in` works on sections" in prompt_text(fake)


def test_escalated_and_rolled_back_calls_change_their_model(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    fake.push(text("tried harder"))
    worker = effect(Role.WORKER, iteration=3, routing_key="IMPLEMENT",
                    guidance=Guidance(escalate=True))  # fmt: skip
    runner.run(worker, task, local_git(checkout))
    assert fake.requests[-1].json["model"] == "claude-opus-5-5"
    routing = parse_routing(
        {
            "routing": {
                "default": {"adapter": "anthropic", "model": "claude-sonnet-5-5"},
                "fallback": {"default": {"adapter": "anthropic", "model": "claude-haiku-5-5"}},
            }
        }
    )
    rolled = AgentRunner(replace(runner.deps, routing=routing))
    fake.push(text("AGENTIUM_EVAL: ADVANCE ok"))
    rolled.run(effect(Role.JUDGE, guidance=Guidance(fallback=True)), task, local_git(checkout))
    assert fake.requests[-1].json["model"] == "claude-haiku-5-5"


def test_an_overloaded_service_is_an_infrastructure_failure_a_bad_request_is_not(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state")
    fake.push(*[overloaded()] * 4)
    outcome = runner.run(effect(Role.JUDGE), task, local_git(checkout))
    assert isinstance(outcome, AgentFailed) and outcome.infrastructure
    assert "529" in outcome.error or "overloaded" in outcome.error
    fake.push(bad_request())
    outcome = runner.run(effect(Role.JUDGE), task, local_git(checkout))
    assert isinstance(outcome, AgentFailed) and not outcome.infrastructure
