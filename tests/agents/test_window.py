"""Context that never overflows: stubs, compaction, and answers cut off at max_tokens."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import ROUTING, local_git, task_context
from tests.agents.test_runner_worker import implement
from tests.fakes.anthropic import FakeAnthropic, cut_off, text, tool_use
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.compaction import CARRIED_MARK, SUMMARY_MARK, compact, prune
from workers.agents.llm import Message, Text, ToolCall, ToolResult
from workers.agents.loop import CONTINUE, CUT_CALL
from workers.agents.prompts import Prompts
from workers.agents.runner import AgentDeps, AgentRunner
from workers.agents.sandbox import Sandbox
from workers.agents.settings import AgentSettings, OutputSettings, WindowSettings
from workers.controller.effects import Session
from workers.controller.outcomes import WorkerDone
from workers.controller.phases import Phase
from workers.controller.routing import parse_routing


def make_runner(adapter: AnthropicAdapter, sandbox: Sandbox, **settings: Any) -> AgentRunner:
    deps = AgentDeps(
        adapters={"anthropic": adapter},
        routing=parse_routing(ROUTING),
        sandbox=sandbox,
        prompts=Prompts(),
        settings=AgentSettings(**settings),
        clock=time.monotonic,
    )
    return AgentRunner(deps)


def prompt_tokens(request: dict[str, Any], fake_usage: dict[str, int]) -> int:
    return sum(fake_usage[k] for k in ("input_tokens", "cache_read_input_tokens"))


def big_file(checkout: Path) -> str:
    lines = [f"value_{n:05} = {n} * 7  # padding padding padding padding" for n in range(6000)]
    (checkout / "big.py").write_text("\n".join(lines) + "\n")
    local_git(checkout).commit_all("a big module")
    return "big.py"


def reads(path: str, count: int) -> list[Any]:
    return [
        tool_use(
            "read_file",
            {"path": path, "start_line": 1 + 300 * n, "end_line": 300 * (n + 1)},
            say=f"Reading part {n} of the file to find the constant.",
        )
        for n in range(count)
    ]


def sizes(fake: FakeAnthropic) -> list[int]:
    """Each request's size in the fake's tokens (4 bytes each), as the usage counted it."""
    from tests.fakes.anthropic import prompt_bytes

    return [len(prompt_bytes(r.json)) // 4 for r in fake.requests]


WINDOW = WindowSettings(default_tokens=60_000, keep_turns=3)
USABLE = int(60_000 * 0.9) - 8192


def test_a_run_that_would_pass_the_window_is_pruned_and_goes_on(
    fake: FakeAnthropic,
    adapter: AnthropicAdapter,
    sandbox: Sandbox,
    checkout: Path,
    tmp_path: Path,
) -> None:
    path = big_file(checkout)
    fake.push(*reads(path, 14), text("Found it: value_04000."))
    runner = make_runner(adapter, sandbox, window=WINDOW)
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))

    assert outcome == WorkerDone(text="Found it: value_04000.", made_commits=False)
    answered = [r.json["messages"][-1]["content"][0].get("content", "") for r in fake.requests]
    assert sum(map(len, answered)) // 4 > 60_000  # the tools' answers alone exceed the window
    assert max(sizes(fake)) <= USABLE * 0.5  # pruned each time it reached prune_at
    last = fake.requests[-1].json["messages"]
    stubs = [
        b["content"]
        for m in last
        for b in m["content"]
        if b.get("type") == "tool_result" and "removed to save context" in b["content"]
    ]
    assert stubs[0] == (
        "[output of read_file big.py lines 1-300 removed to save context; call it again if needed]"
    )
    assert last[-1]["content"][0]["content"].startswith("[big.py: lines 3901-4200 of 6000]")
    first = fake.requests[0].json["messages"][0]["content"][0]["text"]
    assert last[0]["content"][0]["text"] == first  # the cached briefing block is intact


def test_when_stubs_are_not_enough_the_run_is_compacted_and_goes_on(
    fake: FakeAnthropic,
    adapter: AnthropicAdapter,
    sandbox: Sandbox,
    checkout: Path,
    tmp_path: Path,
) -> None:
    path = big_file(checkout)
    fake.push(*reads(path, 14), text("Done."))
    window = WINDOW.model_copy(update={"prune_to": 0.02, "summary_chars": 3000})
    runner = make_runner(adapter, sandbox, window=window)
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))

    assert outcome == WorkerDone(text="Done.", made_commits=False)
    bodies = [r.json for r in fake.requests]
    pairs = itertools.pairwise(bodies)
    compacted = [b for a, b in pairs if len(b["messages"]) < len(a["messages"])]
    assert len(compacted) > 1, "not compacted"
    assert "read_file big.py lines 1-300" in compacted[0]["messages"][0]["content"][-1]["text"]
    body = compacted[-1]
    briefing = body["messages"][0]["content"]
    assert briefing[0]["text"] == bodies[0]["messages"][0]["content"][0]["text"]
    summary = briefing[-1]["text"]
    assert summary.startswith(SUMMARY_MARK)
    assert "## Before that (an earlier summary)" in summary
    assert re.search(r"\nReading part \d+ of the file", summary)  # the agent's own notes
    assert len(body["messages"]) <= 1 + 2 * 3  # the briefing and the last three turns
    assert body["messages"][1]["role"] == "assistant"
    marked = [b for b in briefing if "cache_control" in b]
    assert marked == [briefing[0], briefing[-1]]  # the stable block and the summary
    assert max(sizes(fake)) <= USABLE * 0.5


def test_a_run_that_cannot_fit_stops_before_calling(
    fake: FakeAnthropic,
    adapter: AnthropicAdapter,
    sandbox: Sandbox,
    checkout: Path,
    tmp_path: Path,
) -> None:
    runner = make_runner(adapter, sandbox, window=WindowSettings(default_tokens=9000))
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert isinstance(outcome, WorkerDone)
    assert "stopped by the context limit after 0 model calls" in outcome.text
    assert fake.requests == []


def test_a_text_cut_off_by_max_tokens_is_continued(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(cut_off(text("I changed the parser and ")), text("added two tests."))
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert outcome == WorkerDone(text="I changed the parser and added two tests.")
    second = fake.requests[1].json["messages"]
    assert second[-2]["content"][0]["text"] == "I changed the parser and "
    assert second[-1]["content"][0]["text"] == CONTINUE


def test_a_tool_call_cut_off_by_max_tokens_is_not_run_but_asked_again_with_room(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    fake.push(
        cut_off(tool_use("write_file", {"path": "half.py", "content": "def f(:"})),
        tool_use("write_file", {"path": "whole.py", "content": "def f():\n    pass\n"}),
        text("Wrote whole.py."),
    )
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert outcome == WorkerDone(text="Wrote whole.py.", made_commits=True)
    assert not (checkout / "half.py").exists()
    first, second, _ = (r.json for r in fake.requests)
    assert second["max_tokens"] == 2 * first["max_tokens"]
    assert second["messages"] == first["messages"]  # the cut answer is not in the history


def test_at_the_cap_a_cut_tool_call_is_dropped_with_a_note(
    fake: FakeAnthropic,
    adapter: AnthropicAdapter,
    sandbox: Sandbox,
    checkout: Path,
    tmp_path: Path,
) -> None:
    output = OutputSettings(max_tokens=4096, max_tokens_cap=4096)
    runner = make_runner(adapter, sandbox, output=output)
    fake.push(
        cut_off(tool_use("write_file", {"path": "half.py", "content": "x"}, say="Writing.")),
        text("I will write it in parts next time."),
    )
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert isinstance(outcome, WorkerDone) and not outcome.made_commits
    assert not (checkout / "half.py").exists()
    history = fake.requests[1].json["messages"]
    assert history[-2]["content"] == [{"type": "text", "text": "Writing."}]
    assert history[-1]["content"][0]["text"] == CUT_CALL


def test_endless_continuations_stop_at_their_limit(
    fake: FakeAnthropic,
    adapter: AnthropicAdapter,
    sandbox: Sandbox,
    checkout: Path,
    tmp_path: Path,
) -> None:
    runner = make_runner(adapter, sandbox, output=OutputSettings(continuations=2))
    fake.push(*[cut_off(text(f"part {n}. ")) for n in range(3)])
    outcome = runner.run(implement(), task_context(checkout, tmp_path / "s"), local_git(checkout))
    assert isinstance(outcome, WorkerDone)
    assert outcome.text.startswith("part 0. part 1. part 2.")
    assert "stopped by the output limit after 3 model calls" in outcome.text
    assert len(fake.requests) == 3


def test_a_continued_conversation_carries_no_stale_tool_output(
    fake: FakeAnthropic, runner: AgentRunner, checkout: Path, tmp_path: Path
) -> None:
    path = big_file(checkout)
    fake.push(tool_use("read_file", {"path": path, "end_line": 200}), text("implemented"))
    task = task_context(checkout, tmp_path / "state")
    runner.run(implement(max_iterations=2), task, local_git(checkout))
    fake.push(text("documented"))
    docs = implement(
        phase=Phase.DOCS, routing_key="DOCS", max_iterations=1, session=Session.CONTINUE
    )
    runner.run(docs, task, local_git(checkout))
    continued = fake.requests[-1].json["messages"]
    assert "value_00100" in str(fake.requests[1].json)  # the first run saw the output
    assert "value_00100" not in str(continued)
    result = continued[2]["content"][0]
    assert result["content"] == (
        "[output of read_file big.py lines 1-200 removed to save context; call it again if needed]"
    )
    assert continued[3]["content"][0]["text"] == "implemented"
    assert "Now: phase DOCS" in continued[4]["content"][0]["text"]


def conversation(turns: int) -> list[Message]:
    messages = [Message(role="user", content=(Text(text="stable"), Text(text="variable")))]
    for n in range(turns):
        call = ToolCall(id=f"t{n}", name="run_command", input={"command": f"pytest -k t{n}"})
        output = f"[exit code 1; 999 bytes of output]\n{'noise ' * 100}FAILED test_{n}"
        messages += [
            Message(role="assistant", content=(Text(text=f"note {n}"), call)),
            Message(role="user", content=(ToolResult(tool_use_id=f"t{n}", content=output),)),
        ]
    return messages


def test_stubs_keep_a_failing_commands_status_and_last_lines() -> None:
    pruned = prune(conversation(5), keep_turns=2)
    first = pruned[2].content[0]
    assert isinstance(first, ToolResult)
    assert first.content.startswith("[output of run_command `pytest -k t0` (exit code 1)")
    assert first.content.endswith("FAILED test_0; call it again if needed]")
    assert pruned[-1] == conversation(5)[-1] and pruned[-3] == conversation(5)[-3]


@pytest.mark.parametrize("instruction_in_tail", [False, True])
def test_compaction_carries_the_latest_instructions(instruction_in_tail: bool) -> None:
    messages = conversation(3)
    messages.append(Message(role="assistant", content=(Text(text="done with 1"),)))
    messages.append(Message.user("# Now: phase DOCS, iteration 1 of 1"))
    messages += conversation(4)[1:] if instruction_in_tail else conversation(6)[1:]
    compacted = compact(messages, keep_turns=5 if instruction_in_tail else 2, budget=4000)
    texts = [b.text for b in compacted[0].content if isinstance(b, Text)]
    assert texts[:2] == ["stable", "variable"]
    assert texts[-1].startswith(SUMMARY_MARK)
    carried = [t for t in texts if t.startswith(CARRIED_MARK)]
    if instruction_in_tail:
        assert carried == []
    else:
        assert carried == [f"{CARRIED_MARK}\n\n# Now: phase DOCS, iteration 1 of 1"]
        assert "run_command `pytest -k t3` → exit code 1: " in texts[-1]  # the last errors
        assert "noise FAILED test_3" in texts[-1]
