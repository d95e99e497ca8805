"""Same-failure detection: normalised messages and failing test ids, table-tested."""

from __future__ import annotations

import pytest

from workers.controller.failures import (
    Failure,
    FailureKind,
    normalise,
    repeats,
    same_failure,
    similarity,
)
from workers.controller.phases import Phase

PYTEST_1 = """\
tests/test_cart.py:48: AssertionError
E       AssertionError: assert 11.0 == 11.25
E        +  where 11.0 = <bound method Cart.total of <shop.cart.Cart object at 0x7f3a2c1d9e50>>()
FAILED tests/test_cart.py::test_total_with_discount - AssertionError: assert 11.0 == 11.25
1 failed, 12 passed in 0.42s"""
PYTEST_2 = """\
tests/test_cart.py:52: AssertionError
E       AssertionError: assert 11.0 == 11.25
E        +  where 11.0 = <bound method Cart.total of <shop.cart.Cart object at 0x7fe0110c2a10>>()
FAILED tests/test_cart.py::test_total_with_discount - AssertionError: assert 11.0 == 11.25
1 failed, 13 passed in 0.51s"""
PYTEST_OTHER = """\
E   ModuleNotFoundError: No module named 'shop.pricing'
ERROR tests/test_prices.py - ModuleNotFoundError: No module named 'shop.pricing'
1 error in 0.12s"""
NPM_1 = """\
  ● Cart \u203a applies a discount
    Expected: 11.25
    Received: 11
      at Object.toBe (src/__tests__/cart.test.js:47:26)
Tests:       1 failed, 7 passed, 8 total
Time:        1.204 s"""
NPM_2 = """\
  ● Cart \u203a applies a discount
    Expected: 11.25
    Received: 11
      at Object.toBe (/home/ci/shop/src/__tests__/cart.test.js:49:26)
Tests:       1 failed, 8 passed, 9 total
Time:        0.982 s"""
CARGO_1 = """\
thread 'cart::tests::applies_a_discount' panicked at src/cart.rs:88:9:
assertion `left == right` failed
  left: 1100
 right: 1125
test result: FAILED. 4 passed; 1 failed; 1 ignored; 0 measured; finished in 0.00s"""
CARGO_2 = """\
thread 'cart::tests::applies_a_discount' panicked at src/cart.rs:91:9:
assertion `left == right` failed
  left: 1100
 right: 1125
test result: FAILED. 5 passed; 1 failed; 1 ignored; 0 measured; finished in 0.01s"""
CARGO_BUILD = """\
error[E0425]: cannot find value `discount_rate` in this scope
  --> src/cart.rs:12:20
error: could not compile `shop` (lib) due to 1 previous error"""
JUDGE_1 = "The discount is applied after VAT instead of before; apply it to the net price."
JUDGE_2 = "Apply the discount to the net price, not after VAT has been added (cart.py line 30)."


def failure(text: str, *tests: str, iteration: int = 1, phase: Phase = Phase.IMPLEMENT) -> Failure:
    return Failure.of(
        FailureKind.TESTS if tests else FailureKind.JUDGE, phase, iteration, text, tests
    )


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        (PYTEST_1, PYTEST_2, True),  # other line, other address, other counts
        (PYTEST_1, PYTEST_OTHER, False),
        (NPM_1, NPM_2, True),  # relative and absolute paths, line numbers, timings
        (CARGO_1, CARGO_2, True),
        (CARGO_1, CARGO_BUILD, False),
        (NPM_1, CARGO_1, False),
        ("short error", "short error", False),  # too short to mean anything
    ],
)
def test_same_message(one: str, other: str, same: bool) -> None:
    assert same_failure(failure(one), failure(other)) is same


def test_normalisation_strips_what_changes_between_runs() -> None:
    text = "2026-11-23T06:28:33Z /srv/app/x.py:42:7 line 9 at 0x7f3a2c1d9e50 sha 3f2a9c1b7 in 0.42s"
    assert normalise(text) == "[time] [path]:[n] line [n] at [hex] sha [hex] in [n]"
    assert similarity("Error at /a/b.py:1", "error at /c/d/e.py:200") == 1.0


def test_rewordings_of_the_judge_are_not_the_same_failure_but_the_same_tests_are() -> None:
    # Real rewordings of one complaint score about 0.5: prose alone is not a signal...
    assert not same_failure(failure(JUDGE_1), failure(JUDGE_2))
    # ...the same failing tests are, whatever the prose says.
    assert same_failure(failure(JUDGE_1, "t::a", "t::b"), failure(JUDGE_2, "t::b", "t::a"))
    assert not same_failure(failure(JUDGE_1, "t::a"), failure(JUDGE_1, "t::c"))
    assert not same_failure(failure(PYTEST_1, "t::a"), failure(PYTEST_1))


def test_repeats_counts_the_run_of_same_failures_at_the_end_of_a_phase() -> None:
    history = [
        failure(PYTEST_OTHER, iteration=1),
        failure(PYTEST_1, iteration=2),
        failure(PYTEST_2, iteration=3),
        failure(PYTEST_1, iteration=1, phase=Phase.DOCS),
    ]
    assert repeats(history, Phase.IMPLEMENT) == 2
    assert repeats(history, Phase.DOCS) == 1
    assert repeats(history, Phase.PLAN) == 0
    assert repeats([*history[:3], failure(CARGO_BUILD, iteration=4)], Phase.IMPLEMENT) == 1
