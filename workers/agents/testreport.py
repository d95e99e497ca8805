"""The test command's run in a few lines, for the reviewer's and the judge's context: its
status (from the exit code) and its figures (read by :mod:`workers.agents.testparse`),
then the failing tests' ids, quoted as data (they come from the repository's output)."""

from __future__ import annotations

from workers.agents.sandbox import CommandResult
from workers.agents.testparse import parse_test_output
from workers.agents.untrusted import quoted
from workers.controller.testrun import TestRun

FAILING_SHOWN = 10


def run_of(command: str, result: CommandResult) -> TestRun:
    exit_code = None if result.timed_out else result.exit_code
    return parse_test_output(command, exit_code, result.output)


def status(run: TestRun) -> str:
    if run.exit_code is None:
        return "did not finish (killed at the timeout)"
    return "passed (exit code 0)" if run.ok else f"failed (exit code {run.exit_code})"


def describe(run: TestRun) -> str:
    """``python -m pytest -q``: failed (exit code 1): 4 failed, 38 passed, then the ids."""
    counted = any(n is not None for n in (run.passed, run.failed, run.errors, run.skipped))
    figures = run.summary() if counted else "no counts found in its output"
    line = f"`{run.command}`: {status(run)}: {figures}"
    if not run.failing:
        return line
    shown = list(run.failing[:FAILING_SHOWN])
    if len(run.failing) > FAILING_SHOWN:
        shown.append(f"... and {len(run.failing) - FAILING_SHOWN} more")
    return f"{line}\n\n{quoted('the failing tests', chr(10).join(shown))}"
