"""``write_file`` and ``edit_file``: changes that keep the rest of a file byte for byte.

An edit keeps the file's encoding, byte-order mark and line endings: in a CRLF file the
``\\n`` of ``old_string`` and ``new_string`` (read_file shows lines without their ``\\r``)
become ``\\r\\n``. The answer shows the changed lines with their numbers and a few lines
around them, and for a Python file whether it still parses (reported, never blocking).
Overwriting an existing text file with write_file keeps its encoding and line endings too,
and its answer shows the places that changed the same way (a whole-file rewrite that
dropped or altered something by mistake shows it at once).
"""

from __future__ import annotations

import ast
import difflib
import warnings
from pathlib import Path

from workers.agents.textfile import NotText, TextFile, to_newlines
from workers.agents.workspace import ToolError, Workspace, lines_of

CONTEXT_LINES = 3
MAX_HUNKS = 3
MAX_COMPARED_LINES = 20_000  # write_file compares the old and new text up to this size
PYTHON_SUFFIXES = (".py", ".pyi")


def _existing(workspace: Workspace, path: str, target: Path) -> TextFile | None:
    if not target.is_file():
        return None
    try:
        return workspace.load(path)[1]
    except NotText:
        return None


def write_file(workspace: Workspace, path: str, content: str) -> str:
    target = workspace.resolve(path, write=True)
    if target.is_dir():
        raise ToolError(f"{path!r} is a directory")
    if target.exists() and not target.is_file():
        raise ToolError(f"{path!r} is not a regular file (a FIFO or a device); not written")
    before = _existing(workspace, path, target)
    file = before or TextFile(content)
    if before is not None and before.newline == "\r\n":
        content = to_newlines(content, "\r\n")
    data = file.encode(content, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    kept = f"; kept its {before.describe()}" if before is not None and before.describe() else ""
    summary, changed = _changes(before.text if before is not None else None, content)
    answer = f"wrote {workspace.display(target)} ({len(content)} characters{kept}; {summary})"
    check = syntax_note(target, before.text if before else None, content)
    return "\n".join([answer, *changed, *([check] if check else [])])


def _changes(before: str | None, after: str) -> tuple[str, list[str]]:
    """What write_file changed: a short summary and the changed places' hunks."""
    new = lines_of(after)
    if before is None:
        return f"a new file of {len(new)} line{'' if len(new) == 1 else 's'}", []
    old = lines_of(before)
    if old == new:
        return "the same text as before: nothing changed", []
    if max(len(old), len(new)) > MAX_COMPARED_LINES:
        return f"{len(new)} lines, too long to compare with the old text", []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    opcodes = matcher.get_opcodes()
    places = [(j1 + 1, j2, tag == "delete") for tag, _, _, j1, j2 in opcodes if tag != "equal"]
    out: list[str] = []
    for first, last, removed in places[:MAX_HUNKS]:
        out += _hunk(new, first, last, removed)
    if len(places) > MAX_HUNKS:
        out.append(f"[... and {len(places) - MAX_HUNKS} more changed place(s) not shown]")
    return f"{len(places)} place{'s' if len(places) > 1 else ''} changed", out


def _matches(file: TextFile, old: str, new: str) -> tuple[str, str, int]:
    """``old`` and ``new`` in the file's line endings, and how often ``old`` occurs."""
    if file.newline == "\r\n":
        old, new = to_newlines(old, "\r\n"), to_newlines(new, "\r\n")
        return old, new, file.text.count(old)
    count = file.text.count(old)
    if count == 0 and file.newline == "mixed":
        crlf = to_newlines(old, "\r\n")
        if file.text.count(crlf):
            return crlf, to_newlines(new, "\r\n"), file.text.count(crlf)
    return old, new, count


def edit_file(workspace: Workspace, path: str, old: str, new: str, replace_all: bool) -> str:
    if not old:
        raise ToolError("old_string is empty; use write_file to create a file")
    target, file = workspace.load(path)
    workspace.resolve(path, write=True)
    old, new, count = _matches(file, old, new)
    if count == 0:
        raise ToolError(f"old_string not found in {path!r}; read the file and copy it exactly")
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {path!r}; add context or set replace_all"
        )
    starts = _starts(file.text, old, count if replace_all else 1)
    text = file.text.replace(old, new, len(starts))
    target.write_bytes(file.encode(text, path))
    shift = len(new) - len(old)
    spans = [_span(text, start + n * shift, new) for n, start in enumerate(starts)]
    name = workspace.display(target)
    kept = f" ({file.describe()} kept)" if file.describe() else ""
    changed = hunks(text, spans, removed=not new)
    parts = [f"edited {name}: {len(starts)} replacement(s){kept}", *changed]
    check = syntax_note(target, file.text, text)
    return "\n".join([*parts, check] if check else parts)


def _starts(text: str, old: str, limit: int) -> list[int]:
    found: list[int] = []
    at = text.find(old)
    while at != -1 and len(found) < limit:
        found.append(at)
        at = text.find(old, at + len(old))
    return found


def _span(text: str, start: int, new: str) -> tuple[int, int]:
    """First and last line numbers (1-based) of ``new`` placed at ``start`` in ``text``."""
    first = text.count("\n", 0, start) + 1
    body = new[:-1] if new.endswith("\n") else new
    return first, first + body.count("\n")


def hunks(text: str, spans: list[tuple[int, int]], *, removed: bool = False) -> list[str]:
    """The changed lines (marked ``>``) with their numbers and a few lines of context."""
    lines = lines_of(text)
    out: list[str] = []
    for first, last in spans[:MAX_HUNKS]:
        out += _hunk(lines, first, last, removed)
    if len(spans) > MAX_HUNKS:
        out.append(f"[... and {len(spans) - MAX_HUNKS} more replacement(s) not shown]")
    if not lines:
        out.append("(the file is empty now)")
    return out


def _hunk(lines: list[str], first: int, last: int, removed: bool) -> list[str]:
    low, high = max(1, first - CONTEXT_LINES), min(len(lines), last + CONTEXT_LINES)
    if removed:
        out = [f"text removed at line {first}; the lines around it now read:"]
    else:
        out = [f"lines {first}-{last} now read (with the lines around them):"]
    for number in range(low, high + 1):
        mark = ">" if first <= number <= last and not removed else " "
        out.append(f"{mark}{number:5}\t{lines[number - 1][:300]}")
    return out


def _syntax_error(source: str, name: str) -> SyntaxError | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source, filename=name)
    except SyntaxError as error:
        return error
    except ValueError as error:  # e.g. NUL characters
        return SyntaxError(str(error))
    return None


def syntax_note(target: Path, before: str | None, after: str) -> str:
    """For a Python file: whether it parses after the change (with this interpreter)."""
    if target.suffix not in PYTHON_SUFFIXES:
        return ""
    error = _syntax_error(after, target.name)
    if error is None:
        return "Python syntax check: the file parses."
    where = f"line {error.lineno}: " if error.lineno else ""
    was = ""
    if before is not None:
        was = (
            " (it parsed before this change)" if _syntax_error(before, target.name) is None else ""
        )
        was = was or " (it did not parse before this change either)"
    return f"Python syntax check: {where}{error.msg}{was}. Fix it unless that is intended."
