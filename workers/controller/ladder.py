"""The recovery ladder in the controller: what a failed iteration leads to (docs/design.md §9).

A judge's ITERATE (not on the last iteration, which is a forced ADVANCE) is a failed
attempt of the phase. :func:`after_iterate` records it in the failure history (the
judge's reason, with the failing test ids of the iteration's test run less those that
failed on the base commit too: :func:`failing_tests`), counts how many times in a row the
phase failed the same way (:mod:`failures`: the same failing tests, or the same normalised
message when no test failed) and lets the stuck table (:mod:`recovery`) decide:

| the table says      | the controller                                                      |
|---------------------|---------------------------------------------------------------------|
| CONTINUE            | the doctor when it is due (:mod:`doctor`), else the next iteration  |
| ESCALATE_MODEL      | the next iteration; the worker on the escalation model for the rest |
|                     | of the phase (once per task)                                        |
| REPLAN              | the replanner (anchor + failures), then the next iteration with the |
|                     | revised approach; the stored plan is not touched                    |
| REDUCE_SCOPE        | the next iteration, the worker told to deliver the minimal correct  |
|                     | part; an override (NOMERGE) whose comment lists what was cut        |
| BLOCKED_NEEDS_HUMAN | one question on the issue; the task pauses until a permitted        |
|                     | person's reply (given to the next worker) or ``/agentium retry``    |
| STOP                | BLOCKED (DOCS, which never blocks: a forced ADVANCE)                |
"""

from __future__ import annotations

from workers.controller import doctor, signals
from workers.controller.anchor import intent_of
from workers.controller.core import Context, Transition, first_line, record, status
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    Finish,
    PostComment,
    SetLabel,
    Target,
)
from workers.controller.failures import Failure, FailureKind, repeats
from workers.controller.ladder_moves import (
    add_failure,
    ask_replanner,
    ladder_step,
    next_iteration,
    situation,
    stop,
    with_recovery,
)
from workers.controller.ladder_state import RecoveryAction, note
from workers.controller.moves import resume
from workers.controller.outcomes import HumanAnswer, ReplanDone, Start
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.recovery import StuckAction, stuck_action
from workers.controller.state import Feedback, Override, Pause, WorkflowState
from workers.controller.testrun import compare

QUESTION_REASON = "waiting for an answer to a question"
NO_CUTS = "the worker named nothing it left out: compare the change with the issue"
MAX_CUTS = 30
ANSWER_CHARS = 4000


def on_start(state: WorkflowState, start: Start) -> WorkflowState:
    """Keep the issue as the task starts: the anchor's intent."""
    return with_recovery(state, intent=intent_of(start.title, start.body))


def failing_tests(state: WorkflowState) -> tuple[str, ...]:
    """The failing tests of the iteration's run (``state.tests``, the reviewer's) that did
    not fail on the base commit too (``state.baseline``): a failure that was there before
    the task is not the phase failing, and never makes two attempts the same."""
    run = state.tests
    if run is None or run.ok:
        return ()
    if state.baseline is None:
        return run.failing
    return compare(state.baseline, run).newly_failing


def failure_of(state: WorkflowState, feedback: Feedback) -> Failure:
    tests = failing_tests(state)
    text = feedback.judge or first_line(feedback.review) or "ITERATE without a reason"
    kind = FailureKind.TESTS if tests else FailureKind.JUDGE
    return Failure.of(kind, state.phase, state.iteration, text, tests, round=state.round)


def after_iterate(state: WorkflowState, ctx: Context, feedback: Feedback) -> Transition:
    """A failed iteration: record it, then the stuck table (see the module docstring)."""
    failure = failure_of(state, feedback)
    failed = add_failure(state.model_copy(update={"feedback": feedback}), failure)
    mine = failed.recovery.phase_failures(state.phase, state.round)
    same = repeats(mine, state.phase)
    action = stuck_action(situation(failed, ctx.limits, same), ctx.limits.recovery)
    why = f"{same} same failures in a row: {failure.describe()}"
    if action is StuckAction.ESCALATE_MODEL:
        escalated = with_recovery(failed, escalated=state.phase)
        detail = f"{why}; the worker moves to the escalation model for the rest of {state.phase}"
        noted = ladder_step(escalated, ctx, RecoveryAction.ESCALATE_MODEL, detail)
        return next_iteration(noted, ctx)
    if action is StuckAction.REPLAN:
        return ask_replanner(failed, ctx, why)
    if action is StuckAction.REDUCE_SCOPE:
        return _reduce_scope(failed, ctx, why)
    if action is StuckAction.BLOCKED_NEEDS_HUMAN:
        return _ask_human(failed, ctx, failure, same)
    if action is StuckAction.STOP:
        stopped = ladder_step(failed, ctx, RecoveryAction.STOP, why)
        return stop(stopped, ctx, f"stuck: {why}")
    if doctor.due(failed, ctx, infrastructure=False):
        return doctor.ask(failed, ctx)
    return next_iteration(failed, ctx)


def on_replan(state: WorkflowState, ctx: Context, done: ReplanDone) -> Transition:
    """The revised approach applies from the next iteration on, for the rest of the phase."""
    text = (done.text or "").strip()
    if not text:
        noted = record(state, ctx, Role.REPLANNER, "Replanner gave no approach: carrying on")
        return next_iteration(noted, ctx)
    approach = note(state.phase, state.round, state.iteration + 1, text)
    said = f"Replanner: {first_line(text)}"
    noted = record(with_recovery(state, approach=approach), ctx, Role.REPLANNER, said, detail=text)
    return next_iteration(noted, ctx)


def _reduce_scope(state: WorkflowState, ctx: Context, why: str) -> Transition:
    scope = note(state.phase, state.round, state.iteration + 1, "")
    override = Override(
        phase=state.phase,
        iteration=state.iteration,
        rule=OverrideRule.SCOPE_REDUCED,
        detail=NO_CUTS,
        round=state.round,
    )
    flagged = with_recovery(state, scope=scope, cuts=()).model_copy(
        update={"controller_overrode": True, "overrides": (*state.overrides, override)}
    )
    detail = f"{why}; the budget is nearly spent: the minimal correct part, then NOMERGE"
    return next_iteration(ladder_step(flagged, ctx, RecoveryAction.REDUCE_SCOPE, detail), ctx)


def note_cuts(state: WorkflowState, text: str) -> WorkflowState:
    """A worker told to reduce the scope lists what it left out; the NOMERGE names it."""
    scope, recovery = state.recovery.scope, state.recovery
    if scope is None or not scope.applies(state.phase, state.round, state.iteration):
        return state
    cuts = tuple(dict.fromkeys((*recovery.cuts, *signals.parse_scope_cuts(text))))[:MAX_CUTS]
    detail = "\n".join(cuts) or NO_CUTS
    overrides = tuple(
        o.model_copy(update={"detail": detail})
        if o.rule is OverrideRule.SCOPE_REDUCED and o.round == state.round
        else o
        for o in state.overrides
    )
    return with_recovery(state, cuts=cuts).model_copy(update={"overrides": overrides})


def _question(state: WorkflowState, failure: Failure, same: int) -> str:
    tried = [
        s.action.value
        for s in state.recovery.steps
        if s.phase is state.phase and s.round == state.round
    ]
    done = f" The bot already tried: {', '.join(dict.fromkeys(tried))}." if tried else ""
    return (
        f"{state.phase} failed {same} times in a row the same way; on iteration "
        f"{state.iteration}: {failure.what()}.{done} "
        "What should the agents do differently to get past this failure: is there a "
        "constraint, an approach or a piece of information they are missing?"
    )


def _ask_human(state: WorkflowState, ctx: Context, failure: Failure, same: int) -> Transition:
    """BLOCKED_NEEDS_HUMAN: one question on the issue; the task pauses at the next iteration."""
    question = _question(state, failure, same)
    entered = next_iteration(state, ctx).state
    asked = note(entered.phase, entered.round, entered.iteration, question)
    noted = with_recovery(entered, questions=(*entered.recovery.questions, asked))
    noted = ladder_step(noted, ctx, RecoveryAction.BLOCKED_NEEDS_HUMAN, question)
    assert noted.awaiting is not None
    reason = f"{QUESTION_REASON} (after {same} same failures in {state.phase})"
    point = Pause(phase=noted.phase, awaiting=noted.awaiting, reason=reason)
    ended = noted.model_copy(
        update={"phase": Phase.BLOCKED, "awaiting": None, "end_reason": reason, "paused": point}
    )
    ended = record(ended, ctx, Role.CONTROLLER, f"BLOCKED: {reason}")
    data = {"question": question, "reason": reason, "resume": "/agentium retry"}
    comment = PostComment(Target.ISSUE, CommentKind.QUESTION, data)
    effects = (comment, SetLabel(BLOCKED_LABEL), status(ended), Finish(Phase.BLOCKED))
    return Transition(ended, effects)


def waiting_for_answer(state: WorkflowState) -> bool:
    """Paused by a question (not by an error or a stop): a reply resumes it."""
    return state.paused is not None and state.paused.reason.startswith(QUESTION_REASON)


def on_answer(state: WorkflowState, ctx: Context, answer: HumanAnswer) -> Transition:
    """A permitted person's reply: the next worker gets it, and the task resumes."""
    if not waiting_for_answer(state) or not answer.text.strip():
        return Transition(state)
    assert state.paused is not None
    text = answer.text.strip()[:ANSWER_CHARS]
    who = f"@{answer.user}" if answer.user else "a person"
    given = note(state.paused.phase, state.round, state.iteration, f"{who} answered:\n{text}")
    resumed = resume(with_recovery(state, answer=given), ctx, answer.user)
    noted = ladder_step(resumed.state, ctx, RecoveryAction.ANSWERED, f"{who}: {text}")
    return Transition(noted, resumed.effects)
