"""What the agents saw, per instance, read off the fake Anthropic server's requests.

``agents-saw.md`` in each instance's folder: every model call in order, with the agent's
role; a new conversation in full (its system prompt once per distinct text), a continued
one by its last two messages (the model's previous answer and what came back: tool
results, a reminder). Long tool arguments (a whole file written) are cut, the cut stated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.e2e.model import role_of
from tests.e2e.multitask import issue_of
from tests.fakes.anthropic import Recorded

NAME = "agents-saw.md"
ARGUMENT_CHARS = 1500


def write_transcripts(requests: Iterable[Recorded], folders: Mapping[int, Path]) -> None:
    """One transcript per instance: ``folders`` maps the issue number its prompts show
    (the instance's place in the suite) to its folder."""
    by_issue: dict[int, list[Recorded]] = {}
    for request in requests:
        number = issue_of(request)
        if number in folders:
            by_issue.setdefault(number, []).append(request)
    for number, found in by_issue.items():
        (folders[number] / NAME).write_text(render(found), encoding="utf-8")


def render(requests: list[Recorded]) -> str:
    parts: list[str] = []
    systems: dict[str, int] = {}  # a system prompt's text -> the call that showed it
    for index, request in enumerate(requests, start=1):
        body = request.json
        role = role_of(request)
        messages = body.get("messages", [])
        who = role.value if role is not None else "unknown role"
        if len(messages) > 1:
            parts.append(f"## Call {index}: {who}, continued ({len(messages)} messages)\n")
            parts += [_message(message) for message in messages[-2:]]
            continue
        parts.append(f"## Call {index}: {who}, a new conversation\n")
        system = _system(body.get("system"))
        if system in systems:
            parts.append(f"(the system prompt of call {systems[system]})\n")
        else:
            systems[system] = index
            parts.append(f"### system\n\n{system}\n")
        parts += [_message(message) for message in messages]
    return "\n".join(parts)


def _system(system: Any) -> str:
    if isinstance(system, str):
        return system
    return "\n\n".join(block.get("text", "") for block in system or [])


def _message(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    return f"### {message.get('role')}\n\n" + "\n\n".join(_block(b) for b in blocks) + "\n"


def _block(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "tool_use":
        arguments = {k: _cut(v) for k, v in block.get("input", {}).items()}
        return f"[tool call: {block.get('name')}] {json.dumps(arguments, ensure_ascii=False)}"
    if kind == "tool_result":
        error = " (error)" if block.get("is_error") else ""
        content = block.get("content")
        if isinstance(content, list):
            content = "\n".join(str(part.get("text", "")) for part in content)
        return f"[tool result{error}]\n{content}"
    return f"[{kind} block]"


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > ARGUMENT_CHARS:
        return value[:ARGUMENT_CHARS] + f" [... {len(value) - ARGUMENT_CHARS:,} characters cut]"
    return value
