"""The test command's run as the reviewer and the judge read it."""

from __future__ import annotations

from workers.agents.sandbox import CommandResult
from workers.agents.testreport import describe, run_of


def result(exit_code: int | None, output: str, timed_out: bool = False) -> CommandResult:
    return CommandResult(exit_code, output, len(output), False, timed_out, True, 1.0)


def test_status_figures_and_the_failing_tests_quoted() -> None:
    output = (
        "".join(f"FAILED t.py::test_{n} - x\n" for n in range(12)) + "12 failed, 3 passed in 1s"
    )
    text = describe(run_of("pytest -q", result(1, output)))
    head, quoted = text.split("\n\n", 1)
    assert head == "`pytest -q`: failed (exit code 1): 12 failed, 3 passed"
    assert quoted.startswith('<untrusted-data source="the failing tests">')
    assert "t.py::test_9" in quoted and "t.py::test_10" not in quoted
    assert "... and 2 more" in quoted


def test_without_counts_and_at_the_timeout() -> None:
    assert describe(run_of("make test", result(0, "all good\n"))) == (
        "`make test`: passed (exit code 0): no counts found in its output"
    )
    killed = describe(run_of("make test", result(None, "", timed_out=True)))
    assert (
        killed
        == "`make test`: did not finish (killed at the timeout): no counts found in its output"
    )
