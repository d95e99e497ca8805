"""Property test over random failure sequences: the recovery ladder never loops (replans and
doctor calls stay within their budgets, the run ends), never changes the anchor and never
ends ready after REDUCE_SCOPE (docs/design.md §9)."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.controller.controller_support import NOW, of_type
from workers.controller.effects import MarkReady, RunAgent
from workers.controller.ladder import waiting_for_answer
from workers.controller.ladder_state import RecoveryAction
from workers.controller.limits import Limits, PhaseLimits
from workers.controller.moves import Transition
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    Command,
    DoctorDone,
    HumanAnswer,
    HumanCommand,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    Start,
    WorkerDone,
)
from workers.controller.phases import Phase, Role
from workers.controller.recovery import DoctorLimits, RecoveryLimits
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import step

MAX_STEPS = 600
REASONS = (
    "the exporter still writes the wrong delimiter for every row",
    "the exporter still writes a wrong delimiter for each row",
    "the new test does not cover an empty report at all",
)
TESTS = ((), ("t.py::test_a",), ("t.py::test_a", "t.py::test_b"))
DOCTOR = ("retry_with_fix x", "replan y", "fatal z", "rollback_provider", "no idea")
DOCTOR += ("retry_with_fix again", "retry_with_fix more", "rollback_provider")  # fatal: rarer

recovery_limits = st.builds(
    RecoveryLimits,
    escalation=st.booleans(),
    replans_per_phase=st.integers(0, 2),
    replans_per_task=st.integers(0, 5),
    doctor=st.builds(
        DoctorLimits,
        min_attempts=st.integers(1, 3),
        per_phase=st.integers(0, 3),
        per_task=st.integers(0, 5),
        strong=st.integers(0, 3),
        infrastructure=st.integers(0, 3),
    ),
)
limits_strategy = st.builds(
    Limits,
    COMPLEX=st.builds(
        PhaseLimits, PLAN=st.integers(1, 4), IMPLEMENT=st.integers(1, 10), DOCS=st.integers(1, 5)
    ),
    recovery=recovery_limits,
)


def answer(data: st.DataObject, pending: RunAgent) -> Outcome:
    if data.draw(st.integers(0, 29)) == 0:
        return AgentFailed(pending.role, "overloaded_error (529)", infrastructure=True)
    if pending.role is Role.WORKER:
        cut = data.draw(st.booleans())
        text = "did it" + ("\nAGENTIUM_SCOPE_CUT: the photos" if cut else "")
        return WorkerDone("Goal: export it\n### Task 1: x" if pending.phase is Phase.PLAN else text,
                          made_commits=True)  # fmt: skip
    if pending.role is Role.ASSESSOR:
        return AssessorDone("AGENTIUM_EVAL: COMPLEX")
    if pending.role is Role.REVIEWER:  # mostly the same tests fail again
        failing = data.draw(st.sampled_from(TESTS[1:2] * 4 + TESTS))
        return ReviewerDone("review", TestRun(exit_code=1 if failing else 0, failing=failing))
    if pending.role is Role.DOCTOR:
        return DoctorDone(f"AGENTIUM_DOCTOR: {data.draw(st.sampled_from(DOCTOR))}")
    if pending.role is Role.REPLANNER:
        return ReplanDone(data.draw(st.sampled_from(["another approach", None])))
    verdict = data.draw(st.sampled_from(["ITERATE"] * 10 + ["ADVANCE", "BLOCKED"]))
    return JudgeDone(f"AGENTIUM_EVAL: {verdict} {data.draw(st.sampled_from(REASONS))}")


def check(limits: Limits, before: WorkflowState, after: Transition) -> None:
    state, budget = after.state, limits.recovery
    assert all(n <= budget.replans_per_phase for n in state.recovery.replans.values())
    assert sum(state.recovery.replans.values()) <= budget.replans_per_task
    calls = state.recovery.doctor
    assert calls.total <= budget.doctor.per_task and calls.strong <= budget.doctor.strong
    assert calls.infrastructure <= budget.doctor.infrastructure
    assert all(n <= budget.doctor.per_phase for n in calls.by_phase.values())
    if before.recovery.anchor is not None:
        assert state.recovery.anchor == before.recovery.anchor
    cut = any(s.action is RecoveryAction.REDUCE_SCOPE for s in state.recovery.steps)
    if cut:
        assert state.controller_overrode and not of_type(after.effects, MarkReady)
    baseline = state.baseline.failing if state.baseline else ()
    assert not any(set(f.tests) & set(baseline) for f in state.recovery.failures)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), limits=limits_strategy)
def test_the_ladder_is_bounded_and_keeps_its_promises(data: st.DataObject, limits: Limits) -> None:
    # sometimes a test already fails on the base commit: it is never the phase's failure
    old = data.draw(st.sampled_from([None, TestRun(command="t", exit_code=1, failing=TESTS[1])]))
    transition = step(WorkflowState(), Start("Export", "As CSV.", old), limits, now=NOW)
    for _ in range(MAX_STEPS):
        pending = next(iter(of_type(transition.effects, RunAgent)), None)
        state = transition.state
        if pending is not None:
            outcome = answer(data, pending)
        elif waiting_for_answer(state):
            outcome = HumanAnswer("use a semicolon", "alice")
        elif state.paused is not None and data.draw(st.booleans()):
            outcome = HumanCommand(Command.RETRY, "bob")
        else:
            break
        transition = step(state, outcome, limits, now=NOW)
        check(limits, state, transition)
    else:
        raise AssertionError(f"no end after {MAX_STEPS} steps")
    final = transition.state
    assert final.phase.is_terminal
    if any(s.action is RecoveryAction.REDUCE_SCOPE for s in final.recovery.steps):
        assert final.pr_result != "ready"
    for action in sorted({s.action.value for s in final.recovery.steps}):
        event(f"ladder: {action}")
