"""Test command outputs read as counts and failing test ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from workers.agents.testparse import JEST_SEPARATOR, parse_test_output
from workers.controller.testrun import TestRun, compare

OUTPUTS = Path(__file__).parent / "test_outputs"


@pytest.mark.parametrize(
    ("name", "counts", "failing"),
    [
        (
            "pytest_fail.txt",
            (12, 1, 1, None),
            (
                "tests/test_cart.py::test_total_with_discount",
                "tests/test_prices.py::test_vat_rounding",
            ),
        ),
        ("jest_fail.txt", (7, 1, None, None), (f"Cart {JEST_SEPARATOR} applies a discount",)),
        ("mocha_fail.txt", (3, 1, None, None), ("Cart applies a discount",)),
        ("tap_fail.txt", (1, 1, None, 0), ("applies a discount",)),
        ("cargo_fail.txt", (4, 1, None, 1), ("cart::tests::applies_a_discount",)),
        ("go_fail.txt", (1, 1, None, 0), ("TestDiscount",)),
    ],
)
def test_real_outputs(name: str, counts: tuple[int | None, ...], failing: tuple[str, ...]) -> None:
    run = parse_test_output("cmd", 1, (OUTPUTS / name).read_text())
    assert (run.passed, run.failed, run.errors, run.skipped) == counts
    assert run.failing == failing
    assert not run.ok and "1 failed" in run.summary()


def test_a_passing_pytest_run() -> None:
    run = parse_test_output("pytest", 0, "....\n\x1b[32m===== 4 passed in 0.02s =====\x1b[0m\n")
    assert (run.passed, run.failed, run.failing) == (4, None, ())
    assert run.ok and run.summary() == "4 passed"


def test_unknown_output_keeps_the_exit_code() -> None:
    run = parse_test_output("make test", 2, "make: *** [test] Error 2\n")
    assert run == TestRun(command="make test", exit_code=2)
    assert run.summary() == "exit code 2"
    assert TestRun(exit_code=None).summary() == "did not finish"


def test_comparison_with_the_baseline() -> None:
    baseline = TestRun(exit_code=1, failing=("a", "b"))
    later = TestRun(exit_code=1, failing=("b", "c"))
    found = compare(baseline, later)
    assert (found.newly_failing, found.newly_passing, found.still_failing) == (
        ("c",),
        ("a",),
        ("b",),
    )
    assert "Newly failing (passed at the base commit): `c`" in found.describe()
    assert compare(later, later).newly_failing == ()


def test_pytest_9_subtests_in_the_summary_line() -> None:
    """python-slugify's suite (tests/corpus/repos/) reports subtests on the same line."""
    line = "\x1b[31m18 failed\x1b[0m, 131 passed, 5 skipped, 143 subtests passed in 1.30s\n"
    run = parse_test_output("pytest", 1, f"FAILED tests/test_a.py::test_x - boom\n{line}")
    assert (run.failed, run.passed, run.skipped) == (18, 131, 5)
    assert run.failing == ("tests/test_a.py::test_x",)
    fixed = parse_test_output("pytest", 0, "140 passed, 5 skipped, 152 subtests passed in 3.7s")
    assert (fixed.passed, fixed.failed) == (140, None)


def test_pytest_ids_with_spaces_in_their_parameters() -> None:
    """Parametrised ids may hold spaces and brackets; the message after ` - ` may too."""
    output = "\n".join(
        [
            "FAILED testing/test_iniconfig.py::test_tokenize[comment2] - ParseError: x",
            "FAILED testing/test_iniconfig.py::test_tokenize[comment2 on section] - ParseError",
            "FAILED testing/test_iniconfig.py::test_iscommentline_true[ ;qwe] - assert [1] == [2]",
            "ERROR tests/test_b.py::Suite::test_y[a - b]",
            "FAILED tests/test_c.py::test_z",
            "ERROR tests/test_broken.py - ImportError: no module",
            "4 failed, 38 passed, 2 errors in 0.09s",
        ]
    )
    run = parse_test_output("pytest -q", 1, output)
    assert run.failing == (
        "testing/test_iniconfig.py::test_tokenize[comment2]",
        "testing/test_iniconfig.py::test_tokenize[comment2 on section]",
        "testing/test_iniconfig.py::test_iscommentline_true[ ;qwe]",
        "tests/test_b.py::Suite::test_y[a - b]",
        "tests/test_c.py::test_z",
        "tests/test_broken.py",
    )


def test_pytest_9_failed_subtests_name_their_test() -> None:
    """A unittest test whose subtests failed: one SUBFAILED line per subtest, the test
    itself PASSED; the reviewer gets the test's id once."""
    output = "\n".join(
        [
            "SUBFAILED(argv=[]) tests/test_release.py::Case::test_shape - AssertionError: x",
            "SUBFAILED(argv=['Hello', '--no-lowercase']) tests/test_release.py::Case::test_shape",
            "SUBFAILED[a message] (n=1) tests/test_b.py::test_b[x y] - boom",
            "SUBFAIL tests/test_c.py::test_c - pytest-subtests",
            "3 failed, 140 passed, 5 skipped, 150 subtests passed in 0.87s",
        ]
    )
    run = parse_test_output("pytest -q", 1, output)
    assert (run.failed, run.passed) == (3, 140)
    assert run.failing == (
        "tests/test_release.py::Case::test_shape",
        "tests/test_b.py::test_b[x y]",
        "tests/test_c.py::test_c",
    )
