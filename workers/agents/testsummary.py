"""The test command's result in one line, for the reviewer's and the judge's context.

Not a parser of any framework's output: the line of the output that states counts
(``1 failed, 41 passed in 0.12s``, ``Tests: 2 failed, 10 total``, ``test result: ok. 5
passed``), else its last line, next to the exit code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.agents.sandbox import CommandResult
from workers.agents.untrusted import quoted

_COUNT_RE = re.compile(
    r"\b\d+ (?:passed|failed|errors?|error|skipped|xfailed|xpassed|deselected|tests?|"
    r"passing|failing|pending|todo|total)\b",
    re.IGNORECASE,
)
_BANNER_RE = re.compile(r"^[=\-_ ]+|[=\-_ ]+$")
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colours, which some configurations force
LINE_CHARS = 300


def summary_line(output: str) -> str:
    """The last line that states counts, without pytest's ``=====`` banner; else the last
    non-empty line; empty when there is no output."""
    plain = _ANSI_RE.sub("", output)
    lines = [line.strip() for line in plain.splitlines() if line.strip()]
    counted = [line for line in lines if _COUNT_RE.search(line)]
    chosen = counted[-1] if counted else (lines[-1] if lines else "")
    return _BANNER_RE.sub("", chosen)[:LINE_CHARS]


@dataclass(frozen=True)
class TestSummary:
    __test__ = False  # not a pytest test class

    command: str
    exit_code: int | None
    timed_out: bool
    line: str

    @classmethod
    def of(cls, command: str, result: CommandResult) -> TestSummary:
        return cls(command, result.exit_code, result.timed_out, summary_line(result.output))

    @property
    def status(self) -> str:
        if self.timed_out:
            return "killed at the timeout"
        return (
            "passed (exit code 0)"
            if self.exit_code == 0
            else f"failed (exit code {self.exit_code})"
        )

    def describe(self) -> str:
        """The command and its status, then its summary line quoted as data (the output
        is the repository's, not the bot's)."""
        head = f"`{self.command}`: {self.status}"
        if not self.line:
            return f"{head}, without output"
        return f"{head}; its summary line:\n\n{quoted('the test command', self.line)}"
