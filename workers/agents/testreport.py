"""The test command's run in a few lines, for the reviewer's and the judge's context: its
status (from the exit code) and its figures (read by :mod:`workers.agents.testparse`),
then the failing tests' ids, quoted as data (they come from the repository's output); and
the run against the base commit's, the baseline."""

from __future__ import annotations

from workers.agents.sandbox import CommandResult
from workers.agents.testparse import parse_test_output
from workers.agents.untrusted import quoted
from workers.controller import gate
from workers.controller.testrun import TestRun, compare

FAILING_SHOWN = 10


def run_of(command: str, result: CommandResult) -> TestRun:
    exit_code = None if result.timed_out else result.exit_code
    return parse_test_output(command, exit_code, result.output)


def status(run: TestRun) -> str:
    if run.exit_code is None:
        return "did not finish (killed at the timeout)"
    return "passed (exit code 0)" if run.ok else f"failed (exit code {run.exit_code})"


def headline(run: TestRun) -> str:
    """``python -m pytest -q``: failed (exit code 1): 4 failed, 38 passed"""
    counted = any(n is not None for n in (run.passed, run.failed, run.errors, run.skipped))
    figures = run.summary() if counted else "no counts found in its output"
    return f"`{run.command}`: {status(run)}: {figures}"


def describe(run: TestRun) -> str:
    """The headline, then the failing tests' ids."""
    line = headline(run)
    if not run.failing:
        return line
    return f"{line}\n\n{listed('the failing tests', run.failing)}"


def listed(source: str, ids: tuple[str, ...]) -> str:
    shown = list(ids[:FAILING_SHOWN])
    if len(ids) > FAILING_SHOWN:
        shown.append(f"... and {len(ids) - FAILING_SHOWN} more")
    return quoted(source, "\n".join(shown))


def versus(baseline: TestRun | None, run: TestRun) -> str:
    """The run and how it compares with the baseline: with a usable baseline its figures and
    the comparison's lists, else its own failing tests and why there is no comparison."""
    comparable = gate.off_reason(baseline) is None and run.exit_code is not None
    return f"{headline(run) if comparable else describe(run)}\n\n{against(baseline, run)}"


def against(baseline: TestRun | None, run: TestRun) -> str:
    """``run`` against the base commit's (docs/design.md §12): the baseline's figures, then
    the tests newly failing, newly passing and still failing, their ids quoted as data."""
    off = gate.off_reason(baseline)
    if off is not None:
        return f"No comparison with the base commit (no quality gate): {off}."
    assert baseline is not None
    base = f"On the base commit: {headline(baseline)}."
    if run.exit_code is None:
        return f"{base} This run did not finish: nothing to compare."
    found = compare(baseline, run)
    lines = [
        base,
        f"Against it: {len(found.newly_failing)} newly failing (passed on the base commit), "
        f"{len(found.newly_passing)} newly passing, {len(found.still_failing)} still failing.",
    ]
    for source, ids in (
        ("tests newly failing", found.newly_failing),
        ("tests newly passing", found.newly_passing),
        ("tests still failing", found.still_failing),
    ):
        if ids:
            lines.append(listed(source, ids))
    broken = gate.broken(baseline, run)
    if broken is not None and not broken.failing:
        lines.append(f"The quality gate counts this run as broken: {broken.describe()}.")
    return "\n\n".join(lines)
