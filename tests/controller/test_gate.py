"""The quality gate (docs/design.md §12), through ``step``: an IMPLEMENT ADVANCE while tests
that passed on the base commit fail is turned into ITERATE, or at the limit a forced
ADVANCE (NOMERGE); no baseline, no gate; DOCS is not gated."""

from __future__ import annotations

import pytest

from tests.controller.controller_support import NOW, of_type
from tests.controller.test_transitions import PLAN_TEXT, agent, comments, judge, work
from workers.controller import gate
from workers.controller.effects import CommentKind, MarkReady, PostNomerge
from workers.controller.limits import Limits
from workers.controller.memory import MemoryType
from workers.controller.moves import Transition
from workers.controller.outcomes import AssessorDone, Outcome, ReviewerDone, Start, WorkerDone
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import step

CMD = "python -m pytest -q"
PASSING = TestRun(command=CMD, exit_code=0, passed=12)
OLD_FAILURE = TestRun(command=CMD, exit_code=1, passed=11, failed=1, failing=("t.py::test_old",))
BROKE_ONE = TestRun(command=CMD, exit_code=1, passed=11, failed=1, failing=("t.py::test_a",))
TO_SIMPLE: list[Outcome] = [WorkerDone(PLAN_TEXT), AssessorDone("AGENTIUM_EVAL: SIMPLE")]


def run(baseline: TestRun | None, outcomes: list[Outcome]) -> Transition:
    limits = Limits()
    transition = step(WorkflowState(), Start(baseline=baseline), limits, now=NOW)
    for outcome in outcomes:
        transition = step(transition.state, outcome, limits, now=NOW)
    return transition


def implement(tests: TestRun | None, verdict: str = "ADVANCE") -> list[Outcome]:
    return [work(), ReviewerDone("looks fine", tests=tests), judge(verdict, "good")]


# --- the rule, pure ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("baseline", "reason"),
    [
        (None, "no baseline was taken"),
        (TestRun(command=""), "no test command"),
        (TestRun(command=CMD, exit_code=None), "did not finish on the base commit"),
        (TestRun(command=CMD, exit_code=2), "without naming a failing test"),
    ],
)
def test_without_a_usable_baseline_the_gate_is_off(baseline: TestRun | None, reason: str) -> None:
    off = gate.off_reason(baseline)
    assert off is not None and reason in off
    assert gate.status_line(baseline) == f"off: {off}"
    assert gate.broken(baseline, BROKE_ONE) is None


@pytest.mark.parametrize(
    ("baseline", "current", "failing"),
    [
        (PASSING, BROKE_ONE, ("t.py::test_a",)),
        (OLD_FAILURE, BROKE_ONE, ("t.py::test_a",)),  # test_old now passes, test_a broke
        (PASSING, TestRun(command=CMD, exit_code=4), ()),  # fails naming nothing
        (OLD_FAILURE, TestRun(command=CMD, exit_code=2, errors=1), ()),
    ],
)
def test_a_run_that_breaks_what_passed_is_broken(
    baseline: TestRun, current: TestRun, failing: tuple[str, ...]
) -> None:
    found = gate.broken(baseline, current)
    assert found is not None and found.failing == failing


@pytest.mark.parametrize(
    ("baseline", "current"),
    [
        (PASSING, PASSING),
        (OLD_FAILURE, OLD_FAILURE),  # still failing: not the change's doing
        (OLD_FAILURE, TestRun(command=CMD, exit_code=0, passed=12)),
        (PASSING, TestRun(command=CMD, exit_code=None)),  # did not finish: says nothing
        (PASSING, None),  # the tests did not run on this iteration
    ],
)
def test_a_run_that_breaks_nothing_is_not(baseline: TestRun, current: TestRun | None) -> None:
    assert gate.broken(baseline, current) is None


def test_the_gate_says_what_it_compares_with() -> None:
    line = gate.status_line(OLD_FAILURE)
    assert line == f"on: `{CMD}` on the base commit: 1 failed, 11 passed"


def test_history_names_a_few_tests_cleaned() -> None:
    ids = tuple(f"t.py::test_{n}" for n in range(5))
    said = gate.Broken((*ids[:4], "x`y" + "z" * 200)).describe()
    assert said.startswith("5 tests that passed on the base commit fail now: `t.py::test_0`")
    assert said.endswith("and 2 more") and "`t.py::test_2`" in said and "`t.py::test_3`" not in said
    one = gate.Broken(("a`b",)).describe()
    assert one == "1 test that passed on the base commit fails now: `a'b`"


# --- through step --------------------------------------------------------------------------


def test_an_advance_that_broke_a_test_iterates_with_the_tests_as_feedback() -> None:
    t = run(PASSING, [*TO_SIMPLE, *implement(BROKE_ONE)])
    assert (t.state.phase, t.state.iteration) == (Phase.IMPLEMENT, 2)
    assert not t.state.controller_overrode
    worker = agent(t)
    assert worker.role is Role.WORKER and worker.feedback is not None
    assert worker.feedback.broken == ("t.py::test_a",)
    assert worker.feedback.review == "looks fine"
    assert worker.feedback.judge.startswith(
        "Quality gate: 1 test that passed on the base commit fails now, so the judge's ADVANCE"
    )
    assert "t.py::test_a" not in worker.feedback.judge  # the ids go quoted, in `broken`
    (comment,) = comments(t, CommentKind.FEEDBACK)
    assert comment.data["verdict"] == "ADVANCE" and comment.data["decision"] == "iterate"
    assert comment.data["gate"] == "1 test that passed on the base commit fails now: `t.py::test_a`"
    summaries = [(h.role, h.summary) for h in t.state.history if h.phase is Phase.IMPLEMENT]
    assert summaries[-2:] == [
        (Role.JUDGE, "Judge verdict: ADVANCE (good)"),
        (Role.CONTROLLER, f"Quality gate: {comment.data['gate']}"),
    ]
    assert any(
        e.type is MemoryType.EVAL_FEEDBACK and "Quality gate" in e.text for e in t.state.memory
    )


def test_once_the_tests_pass_again_the_advance_holds() -> None:
    t = run(PASSING, [*TO_SIMPLE, *implement(BROKE_ONE), *implement(PASSING)])
    assert t.state.phase is Phase.DOCS and not t.state.controller_overrode


def test_on_the_last_iteration_the_gate_forces_advance_and_nomerge() -> None:
    outcomes = [*TO_SIMPLE, *implement(BROKE_ONE), *implement(BROKE_ONE)]
    t = run(PASSING, outcomes)
    assert t.state.phase is Phase.DOCS and t.state.controller_overrode
    (override,) = t.state.overrides
    assert (override.phase, override.iteration, override.rule) == (
        Phase.IMPLEMENT,
        2,
        OverrideRule.QUALITY_GATE,
    )
    assert "the judge said ADVANCE on the last iteration, but 1 test" in override.detail
    done = run(PASSING, [*outcomes, work(), ReviewerDone("ok"), judge("ADVANCE")])
    (nomerge,) = of_type(done.effects, PostNomerge)
    assert "IMPLEMENT iteration 2: quality_gate" in nomerge.reason
    assert done.state.pr_result == "nomerge"


@pytest.mark.parametrize("baseline", [None, TestRun(command=""), TestRun(command=CMD, exit_code=2)])
def test_without_a_usable_baseline_the_advance_holds(baseline: TestRun | None) -> None:
    t = run(baseline, [*TO_SIMPLE, *implement(BROKE_ONE)])
    assert t.state.phase is Phase.DOCS and not t.state.controller_overrode
    assert not any("Quality gate" in h.summary for h in t.state.history)


def test_docs_is_not_gated() -> None:
    docs = [work(), ReviewerDone("ok", tests=BROKE_ONE), judge("ADVANCE")]
    t = run(PASSING, [*TO_SIMPLE, *implement(PASSING), *docs])
    assert t.state.phase is Phase.COMPLETE and of_type(t.effects, MarkReady)


def test_only_an_advance_is_gated() -> None:
    t = run(PASSING, [*TO_SIMPLE, *implement(BROKE_ONE, "ITERATE")])
    feedback = agent(t).feedback
    assert feedback is not None and feedback.broken == ()
    t = run(PASSING, [*TO_SIMPLE, *implement(BROKE_ONE, "BLOCKED")])
    assert t.state.phase is Phase.BLOCKED


def test_the_baseline_and_the_iterations_run_are_kept_in_the_state() -> None:
    t = run(OLD_FAILURE, [*TO_SIMPLE, work(), ReviewerDone("r", tests=BROKE_ONE)])
    assert t.state.baseline == OLD_FAILURE and t.state.tests == BROKE_ONE
    again = WorkflowState.model_validate_json(t.state.model_dump_json())
    assert again.baseline == OLD_FAILURE and again.tests == BROKE_ONE
