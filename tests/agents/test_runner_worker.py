"""Scripted model turns drive the real tool loop on a real checkout of iniconfig."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import git, local_git, task_context
from tests.fakes.anthropic import FakeAnthropic, bad_request, text, tool_use
from workers.agents.environment import Environment
from workers.agents.runner import AgentRunner
from workers.agents.sandbox import NOT_SANDBOXED
from workers.controller.effects import RunAgent, Session, TaskPointer
from workers.controller.outcomes import AgentFailed, WorkerDone
from workers.controller.phases import Phase, Role
from workers.tasks.lease import LeaseLost

OLD = "    def __iter__(self) -> Iterator[str]:\n"
NEW = (
    "    def __contains__(self, key: object) -> bool:\n"
    "        return key in self.config.sections.get(self.name, {})\n\n" + OLD
)
TEST = (
    "from iniconfig import IniConfig\n\n\n"
    "def test_contains() -> None:\n"
    '    config = IniConfig("x.ini", data="[section]\\nname = value\\n")\n'
    '    assert "name" in config["section"]\n'
    '    assert "other" not in config["section"]\n'
)
TESTS = "PYTHONPATH=src python -m pytest -q -p no:cacheprovider testing"


def without_cache(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def clean(block: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in block.items() if k != "cache_control"}

    return [{**m, "content": [clean(b) for b in m["content"]]} for m in messages]


def implement(iteration: int = 1, **changes: object) -> RunAgent:
    values: dict[str, object] = {
        "role": Role.WORKER,
        "phase": Phase.IMPLEMENT,
        "iteration": iteration,
        "max_iterations": 5,
        "routing_key": "IMPLEMENT",
    }
    return RunAgent(**{**values, **changes})  # type: ignore[arg-type]


def test_worker_edits_runs_tests_and_the_diff_is_the_scripted_one(
    fake: FakeAnthropic,
    runner: AgentRunner,
    checkout: Path,
    tmp_path: Path,
    environment: Environment,
) -> None:
    """The sandbox's PATH is the stock one (no ``python``): the tests run because the
    command runs inside the environment the environment step set up."""
    fake.push(
        tool_use("read_file", {"path": "src/iniconfig/__init__.py", "start_line": 85}),
        tool_use(
            "edit_file", {"path": "src/iniconfig/__init__.py", "old_string": OLD, "new_string": NEW}
        ),
        tool_use("write_file", {"path": "testing/test_contains.py", "content": TEST}),
        tool_use("run_command", {"command": TESTS}),
        text("Added SectionWrapper.__contains__ and a test; 43 tests pass."),
    )
    task = task_context(checkout, tmp_path / "state", environment=environment)
    outcome = runner.run(implement(), task, local_git(checkout))

    assert outcome == WorkerDone(
        text="Added SectionWrapper.__contains__ and a test; 43 tests pass.", made_commits=True
    )
    assert git(checkout, "diff", "--name-only", f"{task.base_sha}..HEAD").split() == [
        "src/iniconfig/__init__.py",
        "testing/test_contains.py",
    ]
    source = git(checkout, "show", "HEAD:src/iniconfig/__init__.py")
    original = git(checkout, "show", f"{task.base_sha}:src/iniconfig/__init__.py")
    assert source == original.replace(OLD, NEW)
    assert git(checkout, "show", "HEAD:testing/test_contains.py") == TEST
    assert git(checkout, "status", "--porcelain") == ""

    test_run = fake.requests[4].json["messages"][-1]["content"][0]["content"]
    assert "43 passed" in test_run
    assert "exit code 0" in test_run
    assert (NOT_SANDBOXED in test_run) is (not runner.deps.sandbox.isolated)
    summary = (tmp_path / "state" / "phases" / "IMPLEMENT" / "summary.md").read_text()
    assert f"git diff {task.base_sha[:12]}.." in summary


def test_worker_with_nothing_to_change_makes_no_commit(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("Nothing needed changing."))
    task = task_context(checkout, tmp_path / "state")
    outcome = runner.run(implement(), task, local_git(checkout))
    assert outcome == WorkerDone(text="Nothing needed changing.", made_commits=False)


def test_task_walk_shows_the_section_and_breadcrumb(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("done"))
    task = task_context(checkout, tmp_path / "state")
    runner.run(implement(task=TaskPointer(1, 2)), task, local_git(checkout))
    briefing = fake.requests[0].json["messages"][0]["content"][1]["text"]
    assert "Tasks 1-1 of 2 completed. Now executing Task 2" in briefing
    assert "### Task 2: test it" in briefing
    assert "### Task 1: add it" not in briefing


def test_plan_worker_gets_read_only_tools_and_never_commits(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(
        tool_use("write_file", {"path": "evil.txt", "content": "x"}),
        text("### Task 1: add __contains__"),
    )
    effect = implement(phase=Phase.PLAN, routing_key="PLAN", max_iterations=3)
    outcome = runner.run(
        effect, task_context(checkout, tmp_path / "s", plan=None), local_git(checkout)
    )
    assert outcome == WorkerDone(text="### Task 1: add __contains__")
    tools = [t["name"] for t in fake.requests[0].json["tools"]]
    assert tools == ["list_files", "glob", "read_file", "search"]
    refused = fake.requests[1].json["messages"][-1]["content"][0]
    assert refused["is_error"] is True
    assert not (checkout / "evil.txt").exists()


def test_simple_path_continues_one_worker_conversation_into_docs(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("implemented"), text("documented"))
    task = task_context(checkout, tmp_path / "state")
    runner.run(implement(max_iterations=2), task, local_git(checkout))
    docs = implement(
        phase=Phase.DOCS, routing_key="DOCS", max_iterations=1, session=Session.CONTINUE
    )
    runner.run(docs, task, local_git(checkout))
    first, second = (r.json for r in fake.requests)
    earlier = len(first["messages"])
    assert without_cache(second["messages"][:earlier]) == without_cache(first["messages"])
    assert second["messages"][1]["content"][0]["text"] == "implemented"
    assert "Now: phase DOCS" in second["messages"][2]["content"][0]["text"]
    assert second["system"] == first["system"]


def test_model_errors_become_agent_failed(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(bad_request())
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert isinstance(outcome, AgentFailed)
    assert outcome.role is Role.WORKER
    assert "invalid_request_error" in outcome.error


def test_a_run_stops_at_its_next_model_call_once_interrupted(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    """The engine interrupts a step that lost its task's lease (docs/design.md §7)."""
    fake.push(tool_use("read_file", {"path": "README.md"}), text("never asked for"))
    asked: list[int] = []

    def interrupt() -> None:
        asked.append(len(fake.requests))
        if len(asked) > 1:
            raise LeaseLost("o/r#7")

    stopped = AgentRunner(replace(runner.deps, interrupt=interrupt))
    with pytest.raises(LeaseLost):
        stopped.run(implement(), task_context(checkout, tmp_path / "state"), local_git(checkout))
    assert len(fake.requests) == 1 and asked == [0, 1]
