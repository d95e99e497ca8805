"""The test command's run as the reviewer and the judge read it."""

from __future__ import annotations

from workers.agents.briefings import tail_capped
from workers.agents.sandbox import CommandResult
from workers.agents.testreport import describe, run_of
from workers.agents.untrusted import quoted


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


def test_a_long_failing_run_keeps_its_figures_and_its_summary_for_the_reviewer() -> None:
    """As the reviewer gets it (capped to ``test_output_chars``): the status, the figures
    and the failing ids first, pytest's own summary with the assertion message last."""
    output = "".join(f"t.py::test_{n} PASSED\n" for n in range(2000))
    output += "FAILED t.py::test_planted - AssertionError: assert 2 == 3\n"
    output += "======= 1 failed, 2000 passed in 3.21s ======="
    line = describe(run_of("pytest -v", result(1, output)))
    shown = tail_capped(f"{line}\n\nIts output:\n\n{quoted('the output', output)}", 8000)
    assert len(shown) < 8100 and "[... output cut ...]" in shown
    assert shown.startswith("`pytest -v`: failed (exit code 1): 1 failed, 2000 passed\n")
    assert shown.index("t.py::test_planted") < shown.index("[... output cut ...]")
    assert "FAILED t.py::test_planted - AssertionError: assert 2 == 3" in shown
    assert shown.endswith("= 1 failed, 2000 passed in 3.21s =======\n```\n</untrusted-data>")
