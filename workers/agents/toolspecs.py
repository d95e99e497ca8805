"""The worker's tool definitions: byte-identical on every call of a role (cacheable).

Read-only tools (``list_files``, ``glob``, ``read_file``, ``search``) for the PLAN worker
and the reviewers; the IMPLEMENT and DOCS workers also get ``write_file``, ``edit_file``
and ``run_command`` (run in the sandbox).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from workers.agents.llm import ToolSpec


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
        name="glob",
        description=(
            "Find files by name pattern: ** spans directories, * and ? do not, and a "
            "pattern without / matches file names at any depth (e.g. test_*.py, "
            "src/**/*.ts). Answers matching paths, sorted."
        ),
        input_schema=_schema(
            {"pattern": {"type": "string"}, "path": {**_PATH, "description": "Where to look."}},
            ["pattern"],
        ),
    ),
    ToolSpec(
        name="read_file",
        description=(
            "Read a text file, with line numbers. Give start_line/end_line (1-based, "
            "inclusive) to read part of a long file; a long file is shown up to a size "
            "limit and the answer says which lines to read next."
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
        description=(
            "Create or overwrite a text file with the given content (an existing file keeps "
            "its encoding and line endings)."
        ),
        input_schema=_schema({"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
    ),
    ToolSpec(
        name="edit_file",
        description=(
            "Replace old_string by new_string in a file. old_string must match exactly "
            "(without the line numbers read_file shows) and occur once, unless replace_all. "
            "The file keeps its encoding and line endings. Answers the changed lines with "
            "their numbers, and for Python whether the file still parses."
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
            "its exit code and output (long output is cut in the middle). Each command gets "
            "a fresh /tmp: keep files that must last in the scratch directory."
        ),
        input_schema=_schema({"command": {"type": "string"}}, ["command"]),
    ),
)


def tool_specs(access: ToolAccess) -> tuple[ToolSpec, ...]:
    if access is ToolAccess.NONE:
        return ()
    return READ_TOOLS if access is ToolAccess.READ else READ_TOOLS + WRITE_TOOLS
