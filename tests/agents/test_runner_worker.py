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
from workers.controller.effects import RunAgent, Session, WavePointer
from workers.controller.outcomes import AgentFailed, WorkerDone
from workers.controller.phases import Phase, Role
from workers.controller.state import Feedback
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


WAVE_PLAN = """Add `__contains__` to SectionWrapper.

### Task 1a: Test membership
Type: test
Depends on: none
Files: testing/test_contains.py

Write the membership tests.

### Task 1b: Document membership
Type: refactor
Depends on: none
Files: README.rst

### Task 2: Implement membership
Type: impl
Depends on: 1a
Files: src/iniconfig/__init__.py

Add `__contains__`; testing/test_contains.py must pass.

## Notes
src/iniconfig/__init__.py keeps its public names.
"""


def subtask(subtask_id: str, number: int, ids: tuple[str, ...], attempt: int = 1) -> RunAgent:
    wave = WavePointer(number, 2, attempt, 2, ids, start_commit="abc123abc123ff")
    return implement(wave=wave, subtask=subtask_id)


def test_subtasks_share_the_stable_prefix_and_leave_their_changes_uncommitted(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    (state / "waves" / "wave-1").mkdir(parents=True)
    (state / "waves" / "wave-1" / "summary.md").write_text("## Wave 1 summary\nrestore it")
    task = task_context(checkout, state, plan=WAVE_PLAN)
    head = git(checkout, "rev-parse", "HEAD")
    fake.push(tool_use("write_file", {"path": "src/iniconfig/x.py", "content": "x = 1\n"}))
    fake.push(text("implemented"), text("documented"))
    outcome = runner.run(subtask("2", 2, ("2",)), task, local_git(checkout))
    assert outcome == WorkerDone(text="implemented", made_commits=False)
    assert git(checkout, "rev-parse", "HEAD") == head and "x.py" in git(checkout, "status")
    runner.run(subtask("1b", 1, ("1a", "1b")), task, local_git(checkout))
    first, other = fake.requests[0].json, fake.requests[2].json
    assert first["system"] == other["system"] and first["tools"] == other["tools"]
    stable, scoped = (b["text"] for b in first["messages"][0]["content"])
    assert stable == other["messages"][0]["content"][0]["text"]
    assert "### Task 2: Implement membership" in stable  # the task headers are stable
    assert scoped.startswith("# Wave 2 of 2: subtask 2")
    assert "## Wave 1 summary" in scoped and "restore it" in scoped
    assert "**[test] 1a Test membership**: Write the membership tests." in scoped
    assert "src/iniconfig/__init__.py keeps its public names." in scoped  # a section on its file
    assert "Document membership" not in scoped
    assert scoped.rstrip().endswith("Make the changes. Do NOT commit.")
    scoped_1b = other["messages"][0]["content"][1]["text"]
    assert "This is the first wave" in scoped_1b
    assert "None: this subtask depends on no other" in scoped_1b


def test_subtasks_with_private_state_share_the_prefix_and_are_told_their_own_scratch(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(text("done 1a"), text("done 1b"))
    for slot, name in enumerate(("1a", "1b")):  # each its own copy of the state, as in a job
        private = tmp_path / f"state.slot{slot}"
        task = task_context(checkout, private, plan=WAVE_PLAN, test_command="make check")
        runner.run(subtask(name, 1, ("1a", "1b")), task, local_git(checkout))
    first, other = (r.json["messages"][0]["content"] for r in fake.requests)
    assert first[0]["text"] == other[0]["text"]  # no per-slot path in the shared block
    assert "state.slot" not in first[0]["text"] and "scratch directory" not in first[0]["text"]
    for slot, scoped in enumerate((first[1]["text"], other[1]["text"])):
        assert f"Your scratch directory: `{tmp_path / f'state.slot{slot}' / 'scratch'}`" in scoped
        assert "The tests: `make check` (configured)." in scoped


def test_a_retried_subtask_sees_the_full_review_with_the_action_items_last(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    task = task_context(checkout, tmp_path / "state", plan=WAVE_PLAN)
    review = "The tests miss the empty section.\n1. test an empty section\n2. test a missing one"
    feedback = Feedback(review=review, judge="cover empty sections")
    texts = []
    for attempt in (2, 3):
        fake.push(text("again"))
        call = subtask("1a", 1, ("1a", "1b"), attempt=attempt)
        runner.run(replace(call, feedback=feedback), task, local_git(checkout))
        texts.append(fake.requests[-1].json["messages"][0]["content"][1]["text"])
    second = texts[0]
    assert "## Retry attempt 2: " in second and "The tests miss the empty section." in second
    items = second.index("### Action items (focus here)")
    assert second.index("The tests miss") < items < second.index("1. The judge: cover empty")
    assert second.index("test a missing one", items) < second.index("## Your assignment")
    framing = [t.split("## Retry attempt ")[1].split("\n")[0] for t in texts]
    assert framing[0][3:] != framing[1][3:]  # the framing changes per attempt


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
