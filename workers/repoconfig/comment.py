"""The issue comment that says a repository's settings file is invalid and the task waits."""

from __future__ import annotations

from workers.github.bodies import marker
from workers.repoconfig.errors import MAX_CONFIG_BYTES, Problem, RepoConfigError
from workers.repoconfig.model import MAX_ITERATIONS, MAX_LABEL_CHARS, MAX_NO_SIGNAL

MARKER_NAME = "config-error"
MAX_ROWS = 20
MAX_CELL_CHARS = 300

EXPECTED = (
    f"- `trigger_label`: the label that starts a task (text, 1 to {MAX_LABEL_CHARS} characters)",
    "- `limits`: iterations per phase, `SIMPLE:` and/or `COMPLEX:` with `PLAN`, `IMPLEMENT`, "
    f"`DOCS` (whole numbers, 1 to {MAX_ITERATIONS}), and `eval_no_signal_limit` "
    f"(0 to {MAX_NO_SIGNAL})",
    "- `test_command`: the shell command that runs the tests (text), or `null` to let me detect it",
    "- `setup_command`: the shell command that installs the dependencies (text), or `null` to "
    "let me detect it",
    "- `setup_network`: whether that command has the network (`true` or `false`)",
    "- `routing`: per routing key (`PLAN`, `IMPLEMENT_REVIEW`, `JUDGE`, ...) an `adapter` "
    "and/or a `model`",
    "- `budgets`: per task `max_tokens`, `max_dollars`, `max_seconds` (positive numbers)",
)


def format_config_error(
    error: RepoConfigError, *, label: str | None = None, marker_name: str = MARKER_NAME
) -> str:
    """Markdown for the issue: which file and lines, what is expected, that nothing started.

    ``label`` is the label to add again once the file is fixed (the restart hint names it).
    The body starts with ``marker(marker_name)`` for the idempotent comment machinery.
    """
    branch = f" on the `{_inline(error.ref)}` branch" if error.ref else ""
    file = f"[`{error.path}`]({error.html_url})" if error.html_url else f"`{error.path}`"
    again = f"remove and add the `{_inline(label)}` label again" if label else "trigger me again"
    parts = [
        marker(marker_name),
        "### ⚠️ I did not start: the repository's settings need a fix",
        "",
        f"Before starting I read this repository's settings from {file}{branch}, "
        "and I could not use them:",
        "",
        _table(error),
        "",
        f"**What is expected:** a YAML mapping (at most {MAX_CONFIG_BYTES // 1024} KB) with any "
        "of these keys, all optional; a key left out keeps the default:",
        "",
        *EXPECTED,
        "",
        "**The task did not start** and nothing was changed. Once the file is fixed"
        f"{branch}, {again} to start it.",
        "",
    ]
    return "\n".join(parts)


def _table(error: RepoConfigError) -> str:
    rows = [_row(problem, error.html_url) for problem in error.problems[:MAX_ROWS]]
    more = len(error.problems) - MAX_ROWS
    if more > 0:
        rows.append(f"| | | …and {more} more |")
    return "\n".join(["| Line | Setting | Problem |", "|---|---|---|", *rows])


def _row(problem: Problem, html_url: str | None) -> str:
    line = "" if problem.line is None else str(problem.line)
    if line and html_url:
        line = f"[{line}]({html_url}#L{line})"
    key = f"`{_inline(problem.key)}`" if problem.key else "(whole file)"
    return f"| {line} | {key} | {_cell(problem.message)} |"


def _cell(text: str) -> str:
    """Text from the file, made safe for a table cell: no pipes, HTML, mentions or newlines."""
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    for old, new in (("\\", "\\\\"), ("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("\n", " ")):
        text = text.replace(old, new)
    return text.replace("@", "@\u200b")


def _inline(text: str) -> str:
    """Text put inside a code span in a table: no backticks, pipes or newlines."""
    text = text[:MAX_CELL_CHARS].replace("`", "'").replace("|", "\\|")
    return " ".join(text.splitlines())
