"""The agents' scratch directory: kept between commands and runs, never committed or packed."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from tests.agents.conftest import BWRAP, git, local_git, needs_bwrap, task_context
from tests.agents.test_runner_worker import implement
from tests.fakes.anthropic import FakeAnthropic, text, tool_use
from workers.agents.runner import AgentRunner
from workers.agents.sandbox import Sandbox
from workers.controller.outcomes import WorkerDone
from workers.controller.phases import Phase
from workers.engine.statesync import pack


def test_scratch_files_last_between_commands_and_runs_and_are_never_committed(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    scratch = state / "scratch"
    repro = f"{scratch}/repro.sh"
    fake.push(
        tool_use("write_file", {"path": repro, "content": "echo reproduced $((6 * 7))\n"}),
        tool_use("run_command", {"command": f"sh {repro} > {scratch}/out.txt"}),
        tool_use("run_command", {"command": "echo gone > /tmp/t.txt"}),
        tool_use("run_command", {"command": f"cat {scratch}/out.txt; cat /tmp/t.txt"}),
        text("Reproduced it; nothing to change."),
    )
    task = task_context(checkout, state)
    outcome = runner.run(implement(), task, local_git(checkout))
    assert outcome == WorkerDone(text="Reproduced it; nothing to change.", made_commits=False)
    briefing = fake.requests[0].json["messages"][0]["content"][0]["text"]
    assert f"`{scratch}`" in briefing
    seen = fake.requests[4].json["messages"][-1]["content"][0]["content"]
    assert "reproduced 42" in seen
    if BWRAP is not None:
        assert "No such file" in seen  # /tmp is fresh for every command
    assert git(checkout, "status", "--porcelain", "--ignored") == ""

    fake.push(tool_use("run_command", {"command": f"cat {scratch}/out.txt"}), text("still there"))
    runner.run(implement(iteration=2), task, local_git(checkout))
    assert "reproduced 42" in fake.requests[-1].json["messages"][-1]["content"][0]["content"]
    with tarfile.open(fileobj=io.BytesIO(pack(state)), mode="r:gz") as archive:
        names = archive.getnames()
    assert "plan.md" in names
    assert not [n for n in names if n.startswith("scratch")]


def test_the_read_only_agents_cannot_write_to_scratch(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    fake.push(
        tool_use("write_file", {"path": f"{state}/scratch/x.txt", "content": "x"}),
        text("plan"),
    )
    effect = implement(phase=Phase.PLAN, routing_key="PLAN")
    runner.run(effect, task_context(checkout, state, plan=None), local_git(checkout))
    assert fake.requests[1].json["messages"][-1]["content"][0]["is_error"] is True
    assert not (state / "scratch" / "x.txt").exists()


@needs_bwrap
def test_a_writable_directory_under_a_hidden_one_is_visible_alone(
    sandbox: Sandbox, checkout: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    state = data / "tasks" / "t1"
    scratch = state / "scratch"
    scratch.mkdir(parents=True)
    (data / "secret.txt").write_text("top secret")
    (state / "spend.json").write_text("{}")
    sandbox = Sandbox(sandbox.settings, sandbox.bwrap, hidden=(data,))
    command = f"echo kept > {scratch}/note.txt; cat {data}/secret.txt; ls {state}"
    result = sandbox.run(command, checkout, writable=(scratch,))
    assert (scratch / "note.txt").read_text() == "kept\n"
    assert "top secret" not in result.output
    assert "scratch" in result.output
    assert "spend.json" not in result.output  # the rest of the state directory is absent
    refused = sandbox.run(f"echo x > {scratch}/n.txt", checkout)  # not bound: hidden
    assert refused.exit_code != 0
