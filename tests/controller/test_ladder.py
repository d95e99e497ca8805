"""The recovery ladder through ``step``: anchor, failure history, the stuck table's actions,
the doctor, the question to a human (docs/design.md §9)."""

from __future__ import annotations

from tests.controller.controller_support import NOW, drive, joined, of_type
from workers.controller.anchor import digest
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    MarkReady,
    PostComment,
    PostNomerge,
    RunAgent,
    SetLabel,
)
from workers.controller.ladder import waiting_for_answer
from workers.controller.ladder_state import RecoveryAction as RA
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
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.recovery import RecoveryLimits, SpendCaps
from workers.controller.spend import Spend
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import step

PLAN = "Goal: parse inline comments in values.\n\n### Task 1: parser\n### Task 2: docs"
SAME = "the parser still drops the inline comment after a value"
TESTS = ("tests/test_parse.py::test_inline", "tests/test_parse.py::test_hash")
LONG = Limits(COMPLEX=PhaseLimits(PLAN=3, IMPLEMENT=10, DOCS=3))
NO_ESCALATION = LONG.model_copy(update={"recovery": RecoveryLimits(escalation=False)})


def judge(verdict: str, feedback: str = "") -> JudgeDone:
    return JudgeDone(f"Reasoning.\nAGENTIUM_EVAL: {verdict} {feedback}".rstrip())


def reviewed(failing: tuple[str, ...] = ()) -> ReviewerDone:
    return ReviewerDone("the review", TestRun(exit_code=1 if failing else 0, failing=failing))


def start(limits: Limits, baseline: TestRun | None = None) -> Transition:
    began = Start("Inline comments", "Please parse them.", baseline)
    return step(WorkflowState(), began, limits, now=NOW)


# The plan's two tasks run as two waves (docs/design.md §8), each reviewed and judged; the
# whole change's reviewer comes next.
TO_IMPLEMENT: list[Outcome] = [
    WorkerDone(PLAN),
    AssessorDone("AGENTIUM_EVAL: COMPLEX"),
    ReviewerDone("fine"),
    judge("ADVANCE"),
    joined(1, "1"),
    ReviewerDone("wave 1 fine"),
    judge("ADVANCE"),
    joined(2, "2"),
    ReviewerDone("wave 2 fine"),
    judge("ADVANCE"),
]


DEFAULTS = Limits()


def run(
    outcomes: list[Outcome], limits: Limits = DEFAULTS, baseline: TestRun | None = None
) -> Transition:
    transition = start(limits, baseline)
    for outcome in outcomes:
        transition = step(transition.state, outcome, limits, now=NOW)
    return transition


def failing(feedback: str = SAME, tests: tuple[str, ...] = ()) -> list[Outcome]:
    """One more failed IMPLEMENT iteration's reviewer and judge."""
    return [reviewed(tests), judge("ITERATE", feedback)]


def work() -> WorkerDone:
    return WorkerDone("tried again", made_commits=True)


def agent(transition: Transition) -> RunAgent:
    (call,) = of_type(transition.effects, RunAgent)
    return call


def actions(transition: Transition) -> list[RA]:
    return [s.action for s in transition.state.recovery.steps]


def test_the_anchor_is_set_when_plan_advances_and_never_changes() -> None:
    t = run(TO_IMPLEMENT[:3])
    assert t.state.recovery.anchor is None and t.state.recovery.intent is not None
    t = run(TO_IMPLEMENT)
    anchor = t.state.recovery.anchor
    assert anchor is not None
    assert (anchor.title, anchor.goal) == ("Inline comments", "parse inline comments in values.")
    assert anchor.digest == digest("Please parse them.")
    later = run([*TO_IMPLEMENT, *failing(), work(), reviewed(), judge("ADVANCE")])
    assert later.state.recovery.anchor == anchor
    assert agent(later).guidance is None  # the DOCS worker: nothing from the ladder


def test_the_judge_sees_the_anchor() -> None:
    t = run([*TO_IMPLEMENT, reviewed()])
    guidance = agent(t).guidance
    assert agent(t).role is Role.JUDGE and guidance is not None
    assert guidance.anchor == t.state.recovery.anchor


def test_failures_record_the_reason_and_the_failing_tests() -> None:
    t = run([*TO_IMPLEMENT, *failing("add the missing test", TESTS)])
    (failure,) = t.state.recovery.failures
    assert (failure.phase, failure.iteration, failure.kind) == (Phase.IMPLEMENT, 1, "tests")
    assert failure.tests == tuple(sorted(TESTS)) and failure.text == "add the missing test"


def test_the_same_failing_tests_are_the_same_failure_whatever_the_judge_says() -> None:
    outcomes = [*TO_IMPLEMENT, *failing("fix the parser please", TESTS), work()]
    t = run([*outcomes, *failing("the loop over lines is wrong now", TESTS)])
    assert actions(t) == [RA.ESCALATE_MODEL]
    guidance = agent(t).guidance
    assert agent(t).role is Role.WORKER and guidance is not None and guidance.escalate


def test_the_same_prose_with_other_failing_tests_is_not_the_same_failure() -> None:
    outcomes = [*TO_IMPLEMENT, *failing(SAME, TESTS[:1]), work()]
    t = run([*outcomes, *failing(SAME, TESTS[1:])])
    assert agent(t).role is Role.DOCTOR and actions(t) == [RA.DOCTOR]


def test_the_ladder_escalates_then_replans_then_reduces_the_scope() -> None:
    outcomes = [*TO_IMPLEMENT, *failing(), work(), *failing(), work(), *failing()]
    t = run(outcomes)
    assert actions(t) == [RA.ESCALATE_MODEL, RA.REPLAN]
    replanner = agent(t)
    assert replanner.role is Role.REPLANNER and replanner.routing_key == "REPLAN"
    assert replanner.guidance is not None and replanner.guidance.anchor is not None
    assert [f.iteration for f in replanner.guidance.failures] == [1, 2, 3]
    plan = t.state.plan
    t = step(t.state, ReplanDone("Parse with a tokenizer instead."), Limits(), now=NOW)
    worker = agent(t)
    assert worker.iteration == 4 and worker.guidance is not None
    assert (
        worker.guidance.approach == "Parse with a tokenizer instead." and worker.guidance.escalate
    )
    assert t.state.plan == plan  # the stored plan is never revised
    cut = "AGENTIUM_SCOPE_CUT: multi-line values"
    t = run([*outcomes, ReplanDone("Another way."), work(), *failing()])
    assert actions(t)[-1] is RA.REDUCE_SCOPE and t.state.controller_overrode  # 4 of 5
    assert agent(t).guidance is not None and agent(t).guidance.reduce_scope  # type: ignore[union-attr]
    done = [ReviewerDone("ok"), judge("ADVANCE"), WorkerDone("docs"), ReviewerDone("ok")]
    t = run([*outcomes, ReplanDone("x"), work(), *failing(), WorkerDone(f"minimal\n{cut}"), *done])
    t = step(t.state, judge("ADVANCE"), Limits(), now=NOW)
    (nomerge,) = of_type(t.effects, PostNomerge)
    (scope,) = [o for o in nomerge.overrides if o.rule is OverrideRule.SCOPE_REDUCED]
    assert scope.detail == "multi-line values" and not of_type(t.effects, MarkReady)


def test_replans_are_one_per_phase() -> None:
    outcomes = [*TO_IMPLEMENT, *failing(), work(), *failing()]
    outcomes += [ReplanDone("another way"), work(), *failing()]
    t = run(outcomes, NO_ESCALATION)
    assert actions(t) == [RA.REPLAN, RA.BLOCKED_NEEDS_HUMAN]
    assert t.state.recovery.replans == {Phase.IMPLEMENT: 1}


def asked() -> Transition:
    outcomes = [*TO_IMPLEMENT, *failing(), work(), *failing(), ReplanDone("other"), work()]
    return run([*outcomes, *failing()], NO_ESCALATION)


def test_stuck_without_options_asks_one_question_and_pauses() -> None:
    t = asked()
    (question,) = [c for c in of_type(t.effects, PostComment) if c.kind is CommentKind.QUESTION]
    assert "What should the agents do differently" in question.data["question"]
    assert SAME in question.data["question"] and "replan" in question.data["question"]
    assert t.state.phase is Phase.BLOCKED and waiting_for_answer(t.state)
    assert SetLabel(BLOCKED_LABEL) in t.effects and not of_type(t.effects, RunAgent)


def test_a_reply_resumes_with_the_answer_for_the_worker() -> None:
    t = step(asked().state, HumanAnswer("Use configparser's inline_comment_prefixes.", "alice"),
             NO_ESCALATION, now=NOW)  # fmt: skip
    worker = agent(t)
    assert (t.state.phase, worker.role, worker.iteration) == (Phase.IMPLEMENT, Role.WORKER, 4)
    assert worker.guidance is not None and "inline_comment_prefixes" in worker.guidance.answer
    assert worker.guidance.answer.startswith("@alice answered")
    assert actions(t)[-1] is RA.ANSWERED and not waiting_for_answer(t.state)
    again = [work(), *failing()]
    for outcome in again:
        t = step(t.state, outcome, NO_ESCALATION, now=NOW)
    assert actions(t)[-1] is RA.STOP and t.state.phase is Phase.BLOCKED  # asked once already
    assert t.state.paused is None


def test_retry_resumes_a_question_too_and_a_reply_elsewhere_changes_nothing() -> None:
    t = step(asked().state, HumanCommand(Command.RETRY, "bob"), NO_ESCALATION, now=NOW)
    assert agent(t).role is Role.WORKER and not waiting_for_answer(t.state)
    ignored = step(t.state, HumanAnswer("late reply", "alice"), NO_ESCALATION, now=NOW)
    assert ignored.state == t.state and ignored.effects == ()


def test_the_doctor_cheap_then_strong_and_its_hint_goes_to_the_next_worker_once() -> None:
    outcomes = [*TO_IMPLEMENT, *failing("first problem with the parser code"), work()]
    t = run([*outcomes, *failing("an entirely different complaint about docs")])
    doctor = agent(t)
    assert (doctor.role, doctor.routing_key) == (Role.DOCTOR, "DOCTOR")
    assert doctor.guidance is not None and len(doctor.guidance.failures) == 2
    assert "1 of 10 doctor calls" in doctor.guidance.budgets
    t = step(t.state, DoctorDone("I do not know."), Limits(), now=NOW)
    assert (agent(t).routing_key, agent(t).guidance.strong) == ("DOCTOR_STRONG", True)  # type: ignore[union-attr]
    fix = DoctorDone("AGENTIUM_DOCTOR: retry_with_fix run the parser tests first")
    t = step(t.state, fix, Limits(), now=NOW)
    worker = agent(t)
    assert worker.iteration == 3 and worker.guidance is not None
    assert worker.guidance.hint == "run the parser tests first"
    assert actions(t) == [RA.DOCTOR, RA.DOCTOR, RA.RETRY_WITH_FIX]
    calls = t.state.recovery.doctor
    assert (calls.total, calls.strong) == (2, 1)
    t = drive([work(), *failing("a third thing entirely, unrelated to before")], state=t.state)
    assert agent(t).role is Role.DOCTOR  # the strong call was part of the first diagnosis
    t = drive([fix, work(), *failing("and a fourth one about the changelog entry")], state=t.state)
    assert (agent(t).iteration, agent(t).guidance) == (5, None)  # two diagnoses per phase


def test_an_infrastructure_failure_asks_the_doctor_at_once_and_rolls_back() -> None:
    outcomes = [*TO_IMPLEMENT, reviewed(), AgentFailed(Role.JUDGE, "529 overloaded", True)]
    t = run(outcomes)
    assert agent(t).role is Role.DOCTOR and t.state.recovery.doctor.infrastructure == 1
    t = step(
        t.state, DoctorDone("AGENTIUM_DOCTOR: rollback_provider overloaded"), Limits(), now=NOW
    )
    judge_call = agent(t)
    assert judge_call.role is Role.JUDGE and judge_call.guidance is not None
    assert judge_call.guidance.fallback and t.state.recovery.fallback == (Role.JUDGE,)
    t = step(t.state, judge("ITERATE", "more"), Limits(), now=NOW)
    assert agent(t).role is Role.WORKER and not (agent(t).guidance or None)
    t = step(step(t.state, work(), Limits(), now=NOW).state, reviewed(), Limits(), now=NOW)
    assert agent(t).guidance is not None and agent(t).guidance.fallback  # type: ignore[union-attr]


def test_infrastructure_doctor_budget_then_the_usual_pause() -> None:
    limits = Limits(recovery=RecoveryLimits.model_validate({"doctor": {"infrastructure": 1}}))
    boom = AgentFailed(Role.WORKER, "connection reset", infrastructure=True)
    t = run([*TO_IMPLEMENT, *failing("first problem with the parser code"), boom], limits)
    assert agent(t).role is Role.DOCTOR
    t = step(t.state, DoctorDone("AGENTIUM_DOCTOR: retry_with_fix wait"), limits, now=NOW)
    assert agent(t).role is Role.WORKER and agent(t).guidance.hint == "wait"  # type: ignore[union-attr]
    t = step(t.state, boom, limits, now=NOW)
    assert t.state.phase is Phase.BLOCKED and t.state.paused is not None


def test_doctor_fatal_blocks_and_replan_asks_the_replanner() -> None:
    outcomes = [*TO_IMPLEMENT, *failing("first problem with the parser code"), work()]
    outcomes += failing("an entirely different complaint about docs")
    fatal = run([*outcomes, DoctorDone("AGENTIUM_DOCTOR: fatal the API does not exist")])
    assert fatal.state.phase is Phase.BLOCKED and "the API does not exist" in fatal.state.end_reason
    assert fatal.state.paused is None and actions(fatal)[-1] is RA.FATAL
    replan = run([*outcomes, DoctorDone("AGENTIUM_DOCTOR: replan split the parser")])
    assert agent(replan).role is Role.REPLANNER and actions(replan)[-1] is RA.REPLAN


def test_a_doctor_that_cannot_be_run_is_carried_on_without() -> None:
    outcomes = [*TO_IMPLEMENT, *failing("first problem with the parser code"), work()]
    outcomes += failing("an entirely different complaint about docs")
    t = run([*outcomes, AgentFailed(Role.DOCTOR, "overloaded", infrastructure=True)])
    assert agent(t).role is Role.WORKER and agent(t).iteration == 3


def test_the_spend_budget_counts_towards_the_end() -> None:
    caps = RecoveryLimits(escalation=False, budget=SpendCaps(max_dollars=10.0))
    limits = LONG.model_copy(update={"recovery": caps})
    t = run([*TO_IMPLEMENT, *failing(), work(), reviewed()], limits)
    spent = t.state.model_copy(update={"spend": Spend(cost_usd=9.0)})
    t = step(spent, judge("ITERATE", SAME), limits, now=NOW)
    assert actions(t) == [RA.REDUCE_SCOPE]


def test_stop_in_docs_is_a_forced_advance() -> None:
    limits = Limits(
        COMPLEX=PhaseLimits(PLAN=3, IMPLEMENT=5, DOCS=9),
        recovery=RecoveryLimits(escalation=False, replans_per_phase=0),
    )
    docs: list[Outcome] = [*TO_IMPLEMENT, reviewed(), judge("ADVANCE")]
    t = run([*docs, WorkerDone("d"), *failing(), WorkerDone("d"), *failing()], limits)
    assert t.state.phase is Phase.BLOCKED and waiting_for_answer(t.state)  # asks first
    t = step(t.state, HumanAnswer("just document it", "alice"), limits, now=NOW)
    t = drive([WorkerDone("d"), *failing()], limits, t.state)
    assert t.state.phase is Phase.COMPLETE and t.state.controller_overrode
    assert t.state.overrides[-1].rule is OverrideRule.DOCS_BLOCKED
