"""The recovery ladder next to the quality gate's baseline and the wave walk: failures
already there on the base commit are not the phase's, and a wave's failed attempts are
the walk's own (docs/design.md §8, §9, §12)."""

from __future__ import annotations

from tests.controller.controller_support import NOW, joined
from tests.controller.test_ladder import (
    TESTS,
    TO_IMPLEMENT,
    actions,
    agent,
    failing,
    judge,
    reviewed,
    run,
    work,
)
from workers.controller.ladder_state import RecoveryAction as RA
from workers.controller.limits import Limits
from workers.controller.outcomes import (
    AgentFailed,
    Command,
    HumanCommand,
    ReviewerDone,
)
from workers.controller.phases import Phase, Role
from workers.controller.testrun import TestRun
from workers.controller.transitions import step

OLD = "tests/test_legacy.py::test_flaky_clock"  # fails on the base commit already
BASELINE = TestRun(command="pytest", exit_code=1, passed=40, failed=1, failing=(OLD,))


def test_tests_failing_on_the_base_commit_are_left_out_of_a_failure() -> None:
    t = run([*TO_IMPLEMENT, *failing("add the missing test", (*TESTS, OLD))], baseline=BASELINE)
    (failure,) = t.state.recovery.failures
    assert failure.kind == "tests" and failure.tests == tuple(sorted(TESTS))
    only_old = run([*TO_IMPLEMENT, *failing("add the missing test", (OLD,))], baseline=BASELINE)
    (failure,) = only_old.state.recovery.failures
    assert failure.kind == "judge" and failure.tests == ()


def test_a_failure_from_before_the_task_never_makes_two_attempts_the_same() -> None:
    first = [*TO_IMPLEMENT, *failing("the parser drops the value after the comment", (OLD,))]
    outcomes = [*first, work(), *failing("the changelog entry is missing for this", (OLD,))]
    without = run(outcomes)  # no baseline: the same failing test, the same failure
    assert actions(without) == [RA.ESCALATE_MODEL]
    with_baseline = run(outcomes, baseline=BASELINE)  # two different failures: the doctor
    assert actions(with_baseline) == [RA.DOCTOR] and agent(with_baseline).role is Role.DOCTOR


def test_the_gate_refusing_an_advance_is_a_failed_attempt() -> None:
    passing = TestRun(command="pytest", exit_code=0, passed=41)
    t = run([*TO_IMPLEMENT, reviewed(TESTS), judge("ADVANCE", "looks done")], baseline=passing)
    (failure,) = t.state.recovery.failures
    assert failure.tests == tuple(sorted(TESTS)) and failure.text.startswith("Quality gate")
    assert agent(t).role is Role.WORKER and agent(t).iteration == 2


def test_a_waves_failed_attempts_are_not_the_ladders() -> None:
    retried = [
        *TO_IMPLEMENT[:4],
        joined(1, "1"),
        ReviewerDone("wave 1 breaks the parser", reviewed(TESTS).tests),
        judge("ITERATE", "the parser still drops the inline comment after a value"),
        joined(1, "1", attempt=2),
        ReviewerDone("still broken", reviewed(TESTS).tests),
        judge("ITERATE", "the parser still drops the inline comment after a value"),
    ]
    t = run(retried)  # the walk stopped after two attempts: the whole change's reviewer
    assert t.state.walk.stopped and agent(t).role is Role.REVIEWER and agent(t).wave is None
    assert t.state.recovery.failures == () and t.state.recovery.steps == ()
    t = run([*retried, *failing()])  # the iteration's judge is the ladder's first failure
    assert len(t.state.recovery.failures) == 1 and actions(t) == []


def test_a_wave_agent_that_cannot_be_run_pauses_without_the_doctor() -> None:
    overloaded = AgentFailed(Role.JUDGE, "529 overloaded", infrastructure=True)
    t = run([*TO_IMPLEMENT[:4], joined(1, "1"), ReviewerDone("fine"), overloaded])
    assert t.state.phase is Phase.BLOCKED and t.state.paused is not None
    assert t.state.recovery.doctor.total == 0 and t.state.recovery.failures == ()
    resumed = step(t.state, HumanCommand(Command.RETRY, "alice"), Limits(), now=NOW)
    judge_call = agent(resumed)
    assert judge_call.role is Role.JUDGE and judge_call.wave is not None
    assert judge_call.wave.number == 1
