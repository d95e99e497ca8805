"""The test command's result in one line: the output's counts line and the exit code."""

from __future__ import annotations

import pytest

from workers.agents.sandbox import CommandResult
from workers.agents.testsummary import TestSummary, summary_line


@pytest.mark.parametrize(
    ("output", "line"),
    [
        ("....F\n1 failed, 41 passed in 0.12s\n", "1 failed, 41 passed in 0.12s"),
        ("x\n===== 2 passed, 1 skipped in 1.0s =====\n", "2 passed, 1 skipped in 1.0s"),
        ("Tests:       1 failed, 9 passed, 10 total\nTime: 1 s\n",
         "Tests:       1 failed, 9 passed, 10 total"),
        ("test result: ok. 5 passed; 0 failed; 0 ignored\n\n",
         "test result: ok. 5 passed; 0 failed; 0 ignored"),
        ("  3 passing (20ms)\n  1 failing\n\n  1) bad\n", "1 failing"),
        ("ok  \texample.com/x\t0.01s\n", "ok  \texample.com/x\t0.01s"),
        ("\x1b[31m1 failed\x1b[0m, \x1b[32m3 passed\x1b[0m\n", "1 failed, 3 passed"),
        ("", ""),
    ],
)  # fmt: skip
def test_the_counts_line_or_the_last_line(output: str, line: str) -> None:
    assert summary_line(output) == line


def result(exit_code: int | None, output: str, timed_out: bool = False) -> CommandResult:
    return CommandResult(exit_code, output, len(output), False, timed_out, True, 1.0)


def test_the_status_comes_from_the_exit_code_and_the_line_is_quoted_as_data() -> None:
    failed = TestSummary.of("make test", result(2, "boom\n1 failed, 3 passed\n")).describe()
    assert failed.startswith("`make test`: failed (exit code 2); its summary line:")
    assert '<untrusted-data source="the test command">' in failed
    assert "1 failed, 3 passed" in failed
    passed = TestSummary.of("make test", result(0, "3 passed\n")).describe()
    assert passed.startswith("`make test`: passed (exit code 0)")
    killed = TestSummary.of("make test", result(None, "", timed_out=True)).describe()
    assert killed == "`make test`: killed at the timeout, without output"
