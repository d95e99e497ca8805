"""The pure transition function: ``step(state, outcome, limits, now=...)``.

One outcome in, the new state and the effects to perform out; no I/O. The caller performs
the effects in order; a :class:`~workers.controller.effects.RunAgent` effect (always last)
names the agent call whose result is the next outcome. The rules themselves live in
:mod:`workers.controller.rules` (verdict table) and :mod:`workers.controller.moves`.

| outcome        | waiting for | rule                                                        |
|----------------|-------------|-------------------------------------------------------------|
| Start          | nothing     | PLAN iteration 1: run the worker                            |
| BaselineTaken  | anything    | keep the base commit's test run (taken beside PLAN); status |
| WorkerDone     | worker      | PLAN + NOTHING_TO_DO: end; PLAN: the plan check (see        |
|                |             | plan_step); push commits (draft PR at the first); PLAN with |
|                |             | no path: assessor; otherwise reviewer                       |
| WaveJoined     | a wave      | the wave walk (see waves): review, judge, retry, next wave  |
| AssessorDone   | assessor    | SIMPLE: path SIMPLE, PLAN advances at once; else COMPLEX    |
| ReviewerDone   | reviewer    | run the judge                                               |
| JudgeDone      | judge       | no verdict: re-ask once, then the no-signal rule; verdict   |
|                |             | table, the quality gate; feedback comment; ITERATE: ladder  |
| DoctorDone,    | that agent, | the recovery ladder (see ladder, doctor): a diagnosis, a    |
| ReplanDone,    | a question  | revised approach, a permitted person's reply to a question  |
| HumanAnswer    |             |                                                             |
| AgentFailed    | that agent  | assessor: COMPLEX; infrastructure: the doctor; DOCS: forced |
|                |             | ADVANCE; else pause BLOCKED                                 |
| BudgetExceeded | that agent  | BLOCKED with the figures, in every phase (not a pause)      |
| EffectsFailed  | anything    | a push or GitHub failed: the doctor, carry on, or pause     |
| HumanCommand   | anything    | stop: pause; retry: resume a pause; status: refresh status  |
| HumanReview    | COMPLETE    | a review round: IMPLEMENT 1 with the review as feedback,    |
|                | with a PR   | then the loop, DOCS, COMPLETE and a reply on the PR; in any |
|                |             | other state nothing (the caller keeps it queued)            |

Failures, budgets and commands are in :mod:`workers.controller.interrupts`, the review
loop in :mod:`workers.controller.review`, the plan check in
:mod:`workers.controller.plan_step`, the wave walk in :mod:`workers.controller.waves`.
"""

from __future__ import annotations

from datetime import datetime

from workers.controller import doctor, effect_failures, gate, ladder, opening, signals, waves
from workers.controller.calls import Call, after_work
from workers.controller.core import note_feedback, remember
from workers.controller.effects import CommentKind, PostComment, Target
from workers.controller.errors import OutcomeMismatch
from workers.controller.interrupts import on_budget, on_command, on_failure
from workers.controller.limits import Limits, PlanRules
from workers.controller.moves import (
    Context,
    Transition,
    advance,
    block,
    first_line,
    force_advance,
    nothing_to_do,
    pause,
    record,
    request,
    wait_for,
)
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    BaselineTaken,
    BudgetExceeded,
    DoctorDone,
    EffectsFailed,
    HumanAnswer,
    HumanCommand,
    HumanReview,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    Start,
    WaveJoined,
    WorkerDone,
)
from workers.controller.phases import ASSESSOR_VERDICTS, JUDGE_VERDICTS, Path, Phase, Role, Verdict
from workers.controller.plan_step import on_plan
from workers.controller.review import accepts_review, finish_round, start_round
from workers.controller.rules import Action, Ruling, judge
from workers.controller.state import Feedback, WorkflowState

__all__ = ["Transition", "accepts_review", "pending_agent", "step"]


def step(
    state: WorkflowState,
    outcome: Outcome,
    limits: Limits,
    *,
    now: datetime,
    rules: PlanRules | None = None,
) -> Transition:
    """Apply one outcome. Raises :class:`OutcomeMismatch` for an outcome not waited for.

    A :class:`HumanReview` that :func:`accepts_review` refuses changes nothing (no effects).
    ``rules`` (the TDD mode, wave attempts) default to the shipped ones.
    """
    ctx = Context(limits=limits, now=now, rules=rules or PlanRules())
    state = effect_failures.settled(state, outcome)
    return finish_round(state, _step(state, ctx, outcome))


def _role(state: WorkflowState, outcome: Outcome) -> Role:
    if isinstance(outcome, BudgetExceeded) and outcome.role is Role.CONTROLLER:
        return state.awaiting.role if state.awaiting else Role.CONTROLLER
    if isinstance(outcome, AgentFailed | BudgetExceeded):
        return outcome.role
    return _ROLE_OF[type(outcome)]


def _step(state: WorkflowState, ctx: Context, outcome: Outcome) -> Transition:
    if isinstance(outcome, HumanCommand):
        return on_command(state, ctx, outcome)
    if isinstance(outcome, HumanReview):
        return start_round(state, ctx, outcome) if accepts_review(state) else Transition(state)
    if isinstance(outcome, HumanAnswer):
        return ladder.on_answer(state, ctx, outcome)
    if isinstance(outcome, EffectsFailed):
        return effect_failures.on_failed(state, ctx, outcome)
    if isinstance(outcome, Start | BaselineTaken):
        return opening.on_opening(state, ctx, outcome)
    role = _role(state, outcome)
    if state.awaiting is None or state.awaiting.role is not role:
        waiting = state.awaiting.role if state.awaiting else "nothing"
        raise OutcomeMismatch(f"got a {role} outcome while waiting for {waiting} ({state.phase})")
    if isinstance(outcome, BudgetExceeded):
        return on_budget(state, ctx, outcome)
    if isinstance(outcome, AgentFailed):
        return on_failure(state, ctx, outcome, lambda s, c: _on_assessor(s, c, None, failed=True))
    if state.awaiting.wave:
        return _on_wave(state, ctx, outcome)
    if isinstance(outcome, WaveJoined):
        raise OutcomeMismatch(f"wave {outcome.wave} joined while no wave runs ({state.phase})")
    if isinstance(outcome, WorkerDone):
        return _on_worker(state, ctx, outcome)
    if isinstance(outcome, AssessorDone):
        return _on_assessor(state, ctx, outcome.text, failed=False)
    if isinstance(outcome, ReviewerDone):
        return _on_reviewer(state, ctx, outcome)
    if isinstance(outcome, DoctorDone):
        return doctor.on_doctor(state, ctx, outcome)
    if isinstance(outcome, ReplanDone):
        return ladder.on_replan(state, ctx, outcome)
    return _on_judge(state, ctx, outcome)


def _on_wave(state: WorkflowState, ctx: Context, outcome: Outcome) -> Transition:
    if isinstance(outcome, WaveJoined):
        return waves.on_joined(state, ctx, outcome, lambda s, c, r: pause(s, c, r, stopped=False))
    if isinstance(outcome, ReviewerDone):
        return waves.on_review(state, ctx, outcome)
    if isinstance(outcome, JudgeDone):
        return waves.on_judge(state, ctx, outcome)
    raise OutcomeMismatch(f"a {type(outcome).__name__} while a wave's subtasks run")


def pending_agent(state: WorkflowState, limits: Limits) -> Call | None:
    """The call a stored task waits for (to re-enqueue it after a crash), or None."""
    return request(state, limits) if state.awaiting is not None else None


_ROLE_OF: dict[type, Role] = {
    WorkerDone: Role.WORKER,
    WaveJoined: Role.WORKER,
    AssessorDone: Role.ASSESSOR,
    ReviewerDone: Role.REVIEWER,
    JudgeDone: Role.JUDGE,
    DoctorDone: Role.DOCTOR,
    ReplanDone: Role.REPLANNER,
}


def _on_worker(state: WorkflowState, ctx: Context, done: WorkerDone) -> Transition:
    noted = record(
        remember(state, done.text),
        ctx,
        Role.WORKER,
        f"Worker: {first_line(done.text)}",
        detail=done.text,
    )
    if state.phase is Phase.PLAN:
        reason = signals.parse_nothing_to_do(done.text)
        if reason is not None:
            return nothing_to_do(noted, ctx, reason)
        return on_plan(noted.model_copy(update={"plan": done.text}), ctx)
    committed = ladder.note_cuts(noted, done.text).model_copy(
        update={
            "iteration_commits": state.iteration_commits or done.made_commits,
            "has_commits": state.has_commits or done.made_commits,
        }
    )
    return after_work(committed, ctx)


def _on_assessor(
    state: WorkflowState, ctx: Context, text: str | None, *, failed: bool
) -> Transition:
    judgment = signals.parse_verdict(text, ASSESSOR_VERDICTS)
    if judgment is not None and judgment.verdict is Verdict.SIMPLE:
        simple = state.model_copy(update={"path": Path.SIMPLE})
        noted = record(
            simple,
            ctx,
            Role.ASSESSOR,
            "Assessor verdict: SIMPLE -> ADVANCE",
            verdict=Verdict.SIMPLE,
            detail=judgment.feedback,
        )
        return advance(noted, ctx, "assessed SIMPLE")
    why = "COMPLEX" if judgment else ("failed: COMPLEX" if failed else "no signal: COMPLEX")
    complex_ = state.model_copy(update={"path": Path.COMPLEX})
    noted = record(
        complex_,
        ctx,
        Role.ASSESSOR,
        f"Assessor verdict: {why}",
        verdict=Verdict.COMPLEX,
        detail=text or "",
    )
    return wait_for(noted, ctx, Role.REVIEWER)


def _on_reviewer(state: WorkflowState, ctx: Context, done: ReviewerDone) -> Transition:
    update = {"review": done.text, "tests": done.tests}
    reviewed = remember(state.model_copy(update=update), done.text)
    noted = record(
        reviewed, ctx, Role.REVIEWER, f"Reviewer: {first_line(done.text)}", detail=done.text
    )
    return wait_for(noted, ctx, Role.JUDGE)


def _on_judge(state: WorkflowState, ctx: Context, done: JudgeDone) -> Transition:
    judgment = signals.parse_verdict(done.text, JUDGE_VERDICTS)
    reasked = state.awaiting is not None and state.awaiting.reask
    if judgment is None and not reasked:
        noted = record(
            state, ctx, Role.JUDGE, "Judge gave no verdict: re-asking once", detail=done.text or ""
        )
        return wait_for(noted, ctx, Role.JUDGE, reask=True)
    count = 0 if judgment else state.no_signal_count + 1
    limit = ctx.limits.eval_no_signal_limit
    last = state.iteration >= ctx.limits.max_iterations(state.path, state.phase)
    verdict = judgment.verdict if judgment else None
    decision = judge(
        verdict,
        phase=state.phase,
        last_iteration=last,
        no_signal_count=count,
        no_signal_limit=limit,
    )
    feedback = judgment.feedback if judgment else ""
    said = f"Judge gave no verdict again (no-signal {count}/{limit})"
    if verdict is not None:
        said = f"Judge verdict: {verdict}" + (f" ({first_line(feedback)})" if feedback else "")
    noted = record(
        remember(state.model_copy(update={"no_signal_count": count}), done.text or ""),
        ctx,
        Role.JUDGE,
        said,
        verdict=verdict,
        detail=feedback,
    )
    held = gate.hold(noted, ctx, decision, Feedback(review=state.review, judge=feedback))
    comment = gate.annotate(_feedback_comment(held.state, verdict, feedback, held.ruling), held)
    moved = _apply(held.state, ctx, held.ruling, held.feedback)
    return Transition(moved.state, (comment, *moved.effects))


def _feedback_comment(
    state: WorkflowState, verdict: Verdict | None, feedback: str, decision: Ruling
) -> PostComment:
    """One comment per iteration: on the PR once it exists, on the issue before."""
    data = {
        "phase": state.phase.value,
        "iteration": str(state.iteration),
        "round": str(state.round),
        "review": state.review,
        "verdict": verdict.value if verdict else "no verdict",
        "feedback": feedback,
        "decision": decision.action.value,
    }
    target = Target.PR if state.pr_open else Target.ISSUE
    return PostComment(target, CommentKind.FEEDBACK, data)


def _apply(state: WorkflowState, ctx: Context, decision: Ruling, feedback: Feedback) -> Transition:
    if decision.action is Action.ADVANCE:
        return advance(state, ctx, f"judge ADVANCE {feedback.judge}".strip())
    if decision.action is Action.FORCE_ADVANCE:
        assert decision.rule is not None
        return force_advance(state, ctx, decision.rule, decision.reason)
    if decision.action is Action.BLOCK:
        return block(state, ctx, f"{decision.reason}: {feedback.judge}".rstrip(": "))
    return ladder.after_iterate(note_feedback(state, feedback), ctx, feedback)
