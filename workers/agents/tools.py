"""The worker's tools: definitions (byte-identical on every call) and their dispatch.

Read-only tools (``list_files``, ``read_file``, ``search``) for the PLAN worker and the
reviewers; the IMPLEMENT and DOCS workers also get ``write_file``, ``edit_file`` and
``run_command`` (run in the sandbox). A refused or failed call comes back to the model as a
tool result with ``is_error`` set; it never raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from workers.agents.llm import ToolCall, ToolResult, ToolSpec
from workers.agents.sandbox import Sandbox
from workers.agents.workspace import ToolError, Workspace


class ToolAccess(StrEnum):
    NONE = "none"
    READ = "read"
    WRITE = "write"


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_PATH = {"type": "string", "description": "Path relative to the repository root."}
READ_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_files",
        description="List files and directories under a directory of the repository.",
        input_schema=_schema(
            {"path": _PATH, "depth": {"type": "integer", "minimum": 1, "maximum": 5}}, ["path"]
        ),
    ),
    ToolSpec(
        name="read_file",
        description=(
            "Read a text file, with line numbers. Give start_line/end_line (1-based, "
            "inclusive) to read part of a long file."
        ),
        input_schema=_schema(
            {
                "path": _PATH,
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1},
            },
            ["path"],
        ),
    ),
    ToolSpec(
        name="search",
        description=(
            "Search file contents with a Python regular expression; answers path:line: text."
        ),
        input_schema=_schema(
            {
                "pattern": {"type": "string"},
                "path": _PATH,
                "glob": {"type": "string", "description": "Only files matching, e.g. *.py"},
                "ignore_case": {"type": "boolean"},
            },
            ["pattern"],
        ),
    ),
)
WRITE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="write_file",
        description="Create or overwrite a text file with the given content.",
        input_schema=_schema({"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    ),
    ToolSpec(
        name="edit_file",
        description=(
            "Replace old_string by new_string in a file. old_string must match exactly "
            "(without the line numbers read_file shows) and occur once, unless replace_all."
        ),
        input_schema=_schema(
            {
                "path": _PATH,
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean"},
            },
            ["path", "old_string", "new_string"],
        ),
    ),
    ToolSpec(
        name="run_command",
        description=(
            "Run a shell command in the repository root, without network access, and get "
            "its exit code and output (long output is cut in the middle)."
        ),
        input_schema=_schema({"command": {"type": "string"}}, ["command"]),
    ),
)


def tool_specs(access: ToolAccess) -> tuple[ToolSpec, ...]:
    if access is ToolAccess.NONE:
        return ()
    return READ_TOOLS if access is ToolAccess.READ else READ_TOOLS + WRITE_TOOLS


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
            "read_file": lambda a: ws.read(
                _text(a, "path"), _int(a, "start_line", 1) or 1, _int(a, "end_line", None)
            ),
            "search": lambda a: ws.search(
                _text(a, "pattern"),
                _text(a, "path", "."),
                _optional_text(a, "glob"),
                _flag(a, "ignore_case"),
            ),
            "write_file": lambda a: ws.write(_text(a, "path"), _text(a, "content")),
            "edit_file": lambda a: ws.edit(
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
        return self.sandbox.run(_text(args, "command"), self.workspace.root).describe()
