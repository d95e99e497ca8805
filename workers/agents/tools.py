"""The dispatch of the worker's tool calls (definitions in :mod:`workers.agents.toolspecs`).

A refused or failed call comes back to the model as a tool result with ``is_error`` set; it
never raises. ``run_command`` runs in the sandbox with the workspace's writable roots (the
task's scratch directory) bound read-write besides the checkout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workers.agents.edits import edit_file, write_file
from workers.agents.llm import ToolCall, ToolResult
from workers.agents.sandbox import Sandbox
from workers.agents.toolspecs import READ_TOOLS, WRITE_TOOLS, ToolAccess, tool_specs
from workers.agents.workspace import ToolError, Workspace

__all__ = ["READ_TOOLS", "WRITE_TOOLS", "ToolAccess", "ToolBox", "tool_specs"]

READ_ROOM = 400  # characters of a read_file answer kept for its header and its last line


def _text(args: Mapping[str, Any], name: str, default: str | None = None) -> str:
    value = args.get(name, default)
    if not isinstance(value, str):
        raise ToolError(f"argument {name!r} must be a string")
    return value


def _int(args: Mapping[str, Any], name: str, default: int | None) -> int | None:
    value = args.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ToolError(f"argument {name!r} must be an integer")
    return value


def _optional_text(args: Mapping[str, Any], name: str) -> str | None:
    value = args.get(name)
    return None if value is None else _text(args, name)


def _failed(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(tool_use_id=call.id, content=message, is_error=True)


def _flag(args: Mapping[str, Any], name: str) -> bool:
    return bool(args.get(name, False))


class ToolBox:
    """Dispatches tool calls for one agent run. ``run_command`` needs a sandbox."""

    def __init__(
        self,
        workspace: Workspace,
        sandbox: Sandbox | None,
        access: ToolAccess,
        *,
        max_chars: int,
    ) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        self.access = access
        self.specs = tool_specs(access)
        self.max_chars = max_chars
        self._names = {spec.name for spec in self.specs}

    def call(self, call: ToolCall) -> ToolResult:
        if call.name not in self._names:
            return _failed(call, f"unknown tool {call.name!r}")
        try:
            output = self._handlers()[call.name](call.input)
        except ToolError as error:
            return _failed(call, str(error))
        except OSError as error:
            return _failed(call, f"{call.name} failed: {error.strerror}")
        return ToolResult(tool_use_id=call.id, content=self._cap(output))

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        half = self.max_chars // 2
        cut = len(text) - 2 * half
        return f"{text[:half]}\n[... {cut} characters cut ...]\n{text[-half:]}"

    def _handlers(self) -> dict[str, Callable[[Mapping[str, Any]], str]]:
        ws = self.workspace
        return {
            "list_files": lambda a: ws.listing(_text(a, "path", "."), _int(a, "depth", 2) or 2),
            "glob": lambda a: ws.glob(_text(a, "pattern"), _text(a, "path", ".")),
            "read_file": lambda a: ws.read(
                _text(a, "path"),
                _int(a, "start_line", 1) or 1,
                _int(a, "end_line", None),
                max(1000, self.max_chars - READ_ROOM),
            ),
            "search": lambda a: ws.search(
                _text(a, "pattern"),
                _text(a, "path", "."),
                _optional_text(a, "glob"),
                _flag(a, "ignore_case"),
            ),
            "write_file": lambda a: write_file(ws, _text(a, "path"), _text(a, "content")),
            "edit_file": lambda a: edit_file(
                ws,
                _text(a, "path"),
                _text(a, "old_string"),
                _text(a, "new_string"),
                _flag(a, "replace_all"),
            ),
            "run_command": self._run,
        }

    def _run(self, args: Mapping[str, Any]) -> str:
        if self.sandbox is None:
            raise ToolError("run_command is not available in this phase")
        command = _text(args, "command")
        result = self.sandbox.run(command, self.workspace.root, writable=self.workspace.writable)
        return result.describe()
