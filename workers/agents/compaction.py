"""Making a conversation smaller without losing the thread: stubs, then a summary.

- :func:`prune` replaces the tool results of older turns by one-line stubs that say what
  the call was and how to get it again (a failing command keeps its status and last lines),
  and shortens long tool inputs (the content of a write_file, the strings of an edit_file).
  The briefing (the first message) and the last ``keep_turns`` model turns stay as they are.
- :func:`compact` replaces everything between the briefing and the last ``keep_turns``
  turns by a summary built from the run itself (no model call): the agent's own notes, the
  calls it made, the files it changed, the commands and their results, the last errors. The
  summary is appended to the briefing as a block of its own, so the briefing's first block
  (a cache breakpoint) stays byte-identical; the latest instructions given inside the
  dropped part (a SIMPLE worker's new turn) are carried into the briefing too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from workers.agents.llm import Block, Message, Text, ToolCall, ToolResult

STUB_CHARS = 300  # tool results and inputs up to this size are kept as they are
TAIL_CHARS = 300  # the end of a failing command's output kept in its stub
ERROR_CHARS = 400  # the end of each of the last errors kept in a summary
NOTE = "[agentium:"  # texts the bot adds to a conversation start with this
SUMMARY_MARK = f"{NOTE} summary of the earlier part of this run]"
CARRIED_MARK = f"{NOTE} the latest instructions, carried over from the compacted part]"
_STATUS_RE = re.compile(r"\[(exit code -?\d+|killed after the timeout[^;\]]*)")
_FILE_TOOLS = ("write_file", "edit_file")


def _short(value: object, size: int) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= size else text[: size - 1] + "…"


def describe_call(call: ToolCall | None) -> str:
    if call is None:
        return "a tool call"
    args = call.input
    if call.name == "read_file":
        lines = ""
        if "start_line" in args or "end_line" in args:
            lines = f" lines {args.get('start_line', 1)}-{args.get('end_line', 'end')}"
        return f"read_file {args.get('path', '?')}{lines}"
    if call.name == "run_command":
        return f"run_command `{_short(args.get('command', ''), 120)}`"
    if call.name == "search":
        return f"search {_short(args.get('pattern', ''), 60)!r} in {args.get('path', '.')}"
    if call.name == "glob":
        return f"glob {_short(args.get('pattern', ''), 60)}"
    return f"{call.name} {_short(args.get('path', ''), 120)}".strip()


def status(text: str) -> str:
    """A command's status (``exit code 1``) from its result or its stub."""
    match = _STATUS_RE.search(text[:400])
    return match[1] if match else ""


def stub(call: ToolCall | None, result: ToolResult) -> ToolResult:
    what = describe_call(call)
    if call is not None and call.name in _FILE_TOOLS:
        text = f"[answer of {what} removed to save context; read the file for its content now]"
    else:
        state = status(result.content)
        tail = ""
        if state and state != "exit code 0":
            tail = f"; it ended with: {_short(result.content[-TAIL_CHARS:], TAIL_CHARS)}"
        said = f" ({state})" if state else ""
        text = f"[output of {what}{said} removed to save context{tail}; call it again if needed]"
    return result.model_copy(update={"content": text})


def slim_call(call: ToolCall) -> ToolCall:
    long = {k: v for k, v in call.input.items() if isinstance(v, str) and len(v) > STUB_CHARS}
    if not long:
        return call
    shorter = {k: f"[{len(v):,} characters removed to save context]" for k, v in long.items()}
    return call.model_copy(update={"input": {**call.input, **shorter}})


def _slim(message: Message, calls: dict[str, ToolCall]) -> Message:
    blocks: list[Block] = []
    for block in message.content:
        if isinstance(block, ToolResult) and len(block.content) > STUB_CHARS:
            blocks.append(stub(calls.get(block.tool_use_id), block))
        elif isinstance(block, ToolCall):
            blocks.append(slim_call(block))
        else:
            blocks.append(block)
    changed = any(a is not b for a, b in zip(blocks, message.content, strict=True))
    return message.model_copy(update={"content": tuple(blocks)}) if changed else message


def _calls(messages: Iterable[Message]) -> dict[str, ToolCall]:
    return {call.id: call for message in messages for call in message.tool_calls()}


def _cutoff(messages: list[Message], keep_turns: int) -> int:
    """Index of the first message of the last ``keep_turns`` model turns."""
    turns = [n for n, m in enumerate(messages) if m.role == "assistant" and n > 0]
    if keep_turns <= 0 or not turns:
        return len(messages)
    return turns[-keep_turns] if len(turns) >= keep_turns else turns[0]


def prune(messages: list[Message], keep_turns: int) -> list[Message]:
    """Stubs for the tool output of all but the briefing and the last ``keep_turns``."""
    cutoff = _cutoff(messages, keep_turns)
    calls = _calls(messages)
    return [m if n == 0 or n >= cutoff else _slim(m, calls) for n, m in enumerate(messages)]


def is_instruction(message: Message) -> bool:
    """A user turn of instructions (not tool results, not a note of the bot's own loop)."""
    texts = [b for b in message.content if isinstance(b, Text)]
    return (
        message.role == "user"
        and len(texts) == len(message.content) > 0
        and not texts[0].text.startswith(NOTE)
    )


def _marked(block: Block, mark: str) -> bool:
    return isinstance(block, Text) and block.text.startswith(mark)


def compact(messages: list[Message], keep_turns: int, budget: int) -> list[Message]:
    """The briefing (with a summary and carried instructions) and the last turns."""
    cutoff = _cutoff(messages, max(1, keep_turns))
    if cutoff <= 1:
        return messages
    head, dropped, tail = messages[0], messages[1:cutoff], messages[cutoff:]
    own = [b for b in head.content if not _marked(b, NOTE)]
    carried = [b for b in head.content if _marked(b, CARRIED_MARK)]
    if any(is_instruction(m) for m in tail):
        carried = []
    elif latest := [m for m in dropped if is_instruction(m)]:
        carried = [Text(text=f"{CARRIED_MARK}\n\n{latest[-1].text()}")]
    before = "\n".join(
        b.text for b in head.content if isinstance(b, Text) and b.text.startswith(SUMMARY_MARK)
    )
    summary = Text(text=summarise(dropped, before, budget))
    return [Message(role="user", content=(*own, *carried, summary)), *tail]


def _results(messages: list[Message]) -> list[tuple[ToolCall | None, ToolResult]]:
    calls = _calls(messages)
    return [
        (calls.get(block.tool_use_id), block)
        for message in messages
        for block in message.content
        if isinstance(block, ToolResult)
    ]


def _changed_files(results: list[tuple[ToolCall | None, ToolResult]]) -> list[str]:
    files = {
        str(call.input.get("path", "?")): None
        for call, result in results
        if call is not None and call.name in _FILE_TOOLS and not result.is_error
    }
    return list(files)


def _outcomes(results: list[tuple[ToolCall | None, ToolResult]]) -> tuple[list[str], list[str]]:
    """Each call with its status, and the errors (failed calls, failing commands)."""
    done, errors = [], []
    for call, result in results:
        state = "error" if result.is_error else status(result.content)
        done.append(describe_call(call) + (f" → {state}" if state else ""))
        if state and state != "exit code 0":
            tail = _short(result.content[-ERROR_CHARS:], ERROR_CHARS)
            errors.append(f"{describe_call(call)} → {state}: {tail}")
    return done, errors


def _tail(text: str, size: int) -> str:
    return text if len(text) <= size else "…" + text[-size:]


def _fit(lines: list[str], budget: int, *, newest: bool) -> list[str]:
    """As many of ``lines`` as fit ``budget`` characters: the newest or the oldest ones."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines) if newest else lines:
        if used + len(line) + 1 > budget:
            kept.append(f"(… {len(lines) - len(kept)} more not shown)")
            break
        kept.append(line)
        used += len(line) + 1
    return list(reversed(kept)) if newest else kept


def summarise(dropped: list[Message], before: str, budget: int) -> str:
    """A summary of ``dropped`` (and of an earlier summary) in about ``budget`` characters."""
    results = _results(dropped)
    notes = [_short(m.text(), 600) for m in dropped if m.role == "assistant" and m.text()]
    done, errors = _outcomes(results)
    changed = _changed_files(results)
    part = budget // 5
    earlier = before.split("\n\n", 1)[1].strip() if "\n\n" in before else ""  # no header
    earlier = earlier.replace("## ", "### ")
    sections = [
        (
            f"{SUMMARY_MARK}\nTo keep this conversation inside the model's context window, "
            f"{len(dropped)} earlier messages were replaced by this summary. Their tool "
            "outputs are gone: call a tool again for anything you need to see."
        ),
        "## Before that (an earlier summary)\n" + _tail(earlier, part) if earlier else "",
        "## Files you changed\n" + (", ".join(changed) or "none") if changed else "",
        "## The last errors\n" + "\n".join(_fit(errors[-3:], part, newest=True)) if errors else "",
        "## Your tool calls, oldest first\n" + "\n".join(_fit(done, part, newest=True)),
        "## Your own notes, oldest first\n" + "\n".join(_fit(notes, part, newest=True)),
    ]
    return "\n\n".join(s for s in sections if s)
