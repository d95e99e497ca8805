"""A failed push or GitHub call (EffectsFailed) in the pure controller (docs/design.md §9).

| the task                          | EffectsFailed gives                                     |
|-----------------------------------|---------------------------------------------------------|
| awaits the reviewer, doctor due   | the doctor at once, then the reviewer again             |
| doctor's budget used, under limit | the reviewer again, the failure in history and failures |
| at ``effect_failures`` in a row   | pause BLOCKED (resumable), ``/agentium retry`` resumes   |
| an agent's work arrives           | the count starts again                                  |
| ended (COMPLETE)                  | a history line and the status; nothing else             |
"""

from __future__ import annotations

from tests.controller.controller_support import NOW, of_type
from tests.controller.test_ladder import TO_IMPLEMENT, actions, agent, run, work
from workers.controller.effects import PostComment, RunAgent
from workers.controller.failures import FailureKind
from workers.controller.ladder_state import RecoveryAction as RA
from workers.controller.limits import Limits
from workers.controller.outcomes import (
    Command,
    DoctorDone,
    EffectsFailed,
    HumanCommand,
    JudgeDone,
    ReviewerDone,
)
from workers.controller.phases import Phase, Role
from workers.controller.recovery import RecoveryLimits
from workers.controller.transitions import step

REFUSED = EffectsFailed("push", "GitError: pre-receive hook declined")
DOWN = EffectsFailed("github", "RequestFailed: 502 Bad Gateway")
NO_DOCTOR = Limits(recovery=RecoveryLimits.model_validate({"doctor": {"infrastructure": 0}}))
PUSHED = [*TO_IMPLEMENT, ReviewerDone("fine"), JudgeDone("AGENTIUM_EVAL: ITERATE more"), work()]


def test_a_refused_push_asks_the_doctor_at_once_and_then_awaits_the_reviewer_again() -> None:
    before = run(PUSHED)
    assert agent(before).role is Role.REVIEWER
    t = step(before.state, REFUSED, Limits(), now=NOW)
    assert agent(t).role is Role.DOCTOR and actions(t)[-1] is RA.DOCTOR
    failure = t.state.recovery.failures[-1]
    assert failure.kind is FailureKind.INFRA and "pre-receive hook declined" in failure.text
    assert t.state.recovery.doctor.infrastructure == 1
    assert any("push to the task branch failed" in h.summary for h in t.state.history)
    fix = DoctorDone("AGENTIUM_DOCTOR: retry_with_fix leave .github/workflows alone")
    t = step(t.state, fix, Limits(), now=NOW)
    call = agent(t)
    assert call.role is Role.REVIEWER and call.iteration == before.state.iteration
    assert t.state.recovery.hint is not None  # for the next worker
    assert t.state.recovery.hint.iteration == before.state.iteration + 1


def test_without_a_doctor_it_carries_on_then_pauses_at_the_limit_and_retry_resumes() -> None:
    t = run(PUSHED, NO_DOCTOR)
    for count in (1, 2):
        t = step(t.state, DOWN, NO_DOCTOR, now=NOW)
        assert agent(t).role is Role.REVIEWER and t.state.recovery.effect_failures == count
        assert of_type(t.effects, PostComment)  # the status shows it
    t = step(t.state, DOWN, NO_DOCTOR, now=NOW)
    assert t.state.phase is Phase.BLOCKED and t.state.paused is not None
    assert "keeps failing (3 times in a row)" in t.state.end_reason
    assert "502 Bad Gateway" in t.state.end_reason
    t = step(t.state, HumanCommand(Command.RETRY, "alice"), NO_DOCTOR, now=NOW)
    assert agent(t).role is Role.REVIEWER and t.state.phase is Phase.IMPLEMENT


def test_the_limit_is_read_from_the_settings() -> None:
    once = Limits(
        recovery=RecoveryLimits.model_validate(
            {"doctor": {"infrastructure": 0}, "effect_failures": 1}
        )
    )
    t = step(run(PUSHED, once).state, DOWN, once, now=NOW)
    assert t.state.phase is Phase.BLOCKED and t.state.paused is not None


def test_the_doctor_budget_used_up_carries_on_before_the_limit() -> None:
    one = Limits(recovery=RecoveryLimits.model_validate({"doctor": {"infrastructure": 1}}))
    t = step(run(PUSHED, one).state, REFUSED, one, now=NOW)
    assert agent(t).role is Role.DOCTOR
    t = step(t.state, DoctorDone("no idea"), one, now=NOW)  # then the strong one
    t = step(t.state, DoctorDone("still none"), one, now=NOW)
    assert agent(t).role is Role.REVIEWER
    t = step(t.state, REFUSED, one, now=NOW)
    assert agent(t).role is Role.REVIEWER and t.state.recovery.effect_failures == 2
    assert t.state.recovery.doctor.infrastructure == 1


def test_the_doctor_can_find_it_fatal() -> None:
    t = step(run(PUSHED).state, REFUSED, Limits(), now=NOW)
    t = step(
        t.state,
        DoctorDone("AGENTIUM_DOCTOR: fatal the App may not push workflows"),
        Limits(),
        now=NOW,
    )
    assert t.state.phase is Phase.BLOCKED and t.state.paused is None
    assert "may not push workflows" in t.state.end_reason


def test_work_arriving_starts_the_count_again() -> None:
    t = step(run(PUSHED, NO_DOCTOR).state, DOWN, NO_DOCTOR, now=NOW)
    t = step(t.state, DOWN, NO_DOCTOR, now=NOW)
    t = step(t.state, ReviewerDone("looks fine"), NO_DOCTOR, now=NOW)
    assert t.state.recovery.effect_failures == 0 and agent(t).role is Role.JUDGE


def test_a_failure_after_the_task_ended_only_shows() -> None:
    ended = run(PUSHED).state.model_copy(update={"phase": Phase.COMPLETE, "awaiting": None})
    t = step(ended, DOWN, Limits(), now=NOW)
    assert t.state.phase is Phase.COMPLETE and not of_type(t.effects, RunAgent)
    assert t.state.recovery.effect_failures == 1 and of_type(t.effects, PostComment)
