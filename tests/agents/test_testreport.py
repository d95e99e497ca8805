"""The test command's run as the reviewer and the judge read it."""

from __future__ import annotations

from workers.agents.briefings import tail_capped
from workers.agents.sandbox import CommandResult
from workers.agents.testreport import against, describe, run_of, versus
from workers.agents.untrusted import quoted
from workers.controller.testrun import TestRun


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


BASE = TestRun(command="pytest -q", exit_code=1, passed=8, failed=2, failing=("t::a", "t::b"))


def test_a_run_against_the_baseline_lists_what_changed_quoted() -> None:
    now = TestRun(command="pytest -q", exit_code=1, passed=8, failed=2, failing=("t::b", "t::c"))
    text = versus(BASE, now)
    assert text.startswith("`pytest -q`: failed (exit code 1): 2 failed, 8 passed\n\n")
    assert "On the base commit: `pytest -q`: failed (exit code 1): 2 failed, 8 passed." in text
    assert "Against it: 1 newly failing (passed on the base commit), 1 newly passing, " in text
    for source, test in (("newly failing", "t::c"), ("newly passing", "t::a")):
        assert f'<untrusted-data source="tests {source}">\n```\n{test}\n```' in text
    assert '<untrusted-data source="tests still failing">\n```\nt::b\n```' in text
    assert "the failing tests" not in text  # the comparison's lists say it once


def test_without_a_usable_baseline_the_run_keeps_its_own_list() -> None:
    now = TestRun(command="pytest -q", exit_code=1, failed=1, failing=("t::c",))
    text = versus(None, now)
    assert '<untrusted-data source="the failing tests">' in text
    assert text.endswith(
        "No comparison with the base commit (no quality gate): no baseline was taken."
    )
    assert against(TestRun(command=""), now).endswith("no test command.")


def test_a_run_that_fails_naming_nothing_is_called_broken() -> None:
    passing = TestRun(command="make test", exit_code=0)
    text = against(passing, TestRun(command="make test", exit_code=2))
    assert "Against it: 0 newly failing" in text
    assert text.endswith(
        "The quality gate counts this run as broken: the test command fails now (exit code 2) "
        "without naming a failing test, where on the base commit it passed or named what "
        "failed."
    )
    unfinished = against(passing, TestRun(command="make test", exit_code=None))
    assert unfinished == (
        "On the base commit: `make test`: passed (exit code 0): no counts found in its output. "
        "This run did not finish: nothing to compare."
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
