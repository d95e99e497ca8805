"""The controller's moves: start an iteration, advance, block, pause, complete.

Each takes the state and returns a :class:`Transition`; none performs I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from workers.controller import memory
from workers.controller.anchor import anchor_of
from workers.controller.calls import request, wait_for, walks_waves
from workers.controller.core import Context, Transition, excerpt, first_line, record, status
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    PostComment,
    PostNomerge,
    SetLabel,
    Target,
)
from workers.controller.phases import OverrideRule, Path, Phase, Role, Verdict, next_phase
from workers.controller.plan import count_tasks
from workers.controller.state import Feedback, Override, Pause, WorkflowState
from workers.controller.waves import start_walk

__all__ = [
    "Context",
    "Transition",
    "excerpt",
    "first_line",
    "record",
    "request",
    "status",
    "wait_for",
    "walks_waves",
]


def enter_iteration(
    state: WorkflowState, ctx: Context, phase: Phase, iteration: int, feedback: Feedback | None
) -> Transition:
    """Start ``iteration`` of ``phase`` with a worker call."""
    entered = state.model_copy(
        update={
            "phase": phase,
            "iteration": iteration,
            "iterations": {**state.iterations, phase: iteration},
            "iteration_commits": False,
            "review": "",
            "feedback": feedback,
        }
    )
    if walks_waves(entered):
        return start_walk(entered, ctx)
    started = wait_for(entered, ctx, Role.WORKER)
    return Transition(started.state, (status(started.state), *started.effects))


def _phase_result(state: WorkflowState, how: str) -> WorkflowState:
    summary = f"{state.phase} advanced after {state.iteration} iteration(s): {how}"
    kept = memory.on_advance(state.memory, state.phase, state.iteration, summary)
    return state.model_copy(update={"memory": kept, "no_signal_count": 0})


def advance(state: WorkflowState, ctx: Context, how: str) -> Transition:
    """ADVANCE to the next phase (iteration counter resets); ``how`` goes into PHASE_RESULT."""
    if state.phase is Phase.IMPLEMENT and not state.has_commits:
        return block(state, ctx, "no changes: IMPLEMENT ended without any commit")
    done = _phase_result(state, how)
    target = next_phase(state.phase)
    if target is Phase.COMPLETE:
        return complete(done, ctx)
    effects: tuple[Effect, ...] = ()
    if state.phase is Phase.PLAN:
        plan = state.plan or ""
        path = done.path or Path.COMPLEX  # a PLAN forced on before any assessment: cautious
        done = done.model_copy(update={"total_tasks": count_tasks(plan), "path": path})
        done = _anchored(done, plan)
        effects = (PostComment(Target.ISSUE, CommentKind.PLAN, {"plan": plan}),)
    entered = enter_iteration(done, ctx, target, 1, None)
    return Transition(entered.state, effects + entered.effects)


def _anchored(state: WorkflowState, plan: str) -> WorkflowState:
    """The goal anchor, set once when PLAN advances and never changed (docs/design.md §9)."""
    recovery = state.recovery
    if recovery.anchor is not None:
        return state
    anchor = anchor_of(recovery.intent, plan)
    return state.model_copy(update={"recovery": recovery.model_copy(update={"anchor": anchor})})


def force_advance(
    state: WorkflowState, ctx: Context, rule: OverrideRule, reason: str
) -> Transition:
    """ADVANCE although the judge did not say so: sets ``controller_overrode`` (NOMERGE)."""
    override = Override(
        phase=state.phase, iteration=state.iteration, rule=rule, detail=reason, round=state.round
    )
    noted = record(
        state,
        ctx,
        Role.CONTROLLER,
        f"Controller overrides: ADVANCE ({rule})",
        verdict=Verdict.ADVANCE,
        detail=reason,
    )
    flagged = noted.model_copy(
        update={"controller_overrode": True, "overrides": (*state.overrides, override)}
    )
    return advance(flagged, ctx, f"forced by the controller ({rule})")


def _end(state: WorkflowState, ctx: Context, phase: Phase, reason: str) -> WorkflowState:
    ended = state.model_copy(update={"phase": phase, "awaiting": None, "end_reason": reason})
    return record(ended, ctx, Role.CONTROLLER, f"{phase}: {reason}" if reason else str(phase))


def _blocked_comments(
    state: WorkflowState, kind: CommentKind, data: dict[str, str]
) -> list[Effect]:
    effects: list[Effect] = [PostComment(Target.ISSUE, kind, data)]
    if state.pr_open:
        effects.append(PostComment(Target.PR, kind, data))
    return effects


def block(
    state: WorkflowState, ctx: Context, reason: str, extra: Mapping[str, str] | None = None
) -> Transition:
    """End the task as BLOCKED: reason (and ``extra`` data) on the issue (and PR), PR stays
    draft, label set."""
    data = {"reason": reason, **(extra or {})}
    comments = _blocked_comments(state, CommentKind.BLOCKED, data)
    ended = _end(state, ctx, Phase.BLOCKED, reason)
    effects = (*comments, SetLabel(BLOCKED_LABEL), status(ended), Finish(Phase.BLOCKED))
    return Transition(ended, effects)


def pause(state: WorkflowState, ctx: Context, reason: str, *, stopped: bool) -> Transition:
    """Stop as BLOCKED but remember the pending call, so ``/agentium retry`` resumes it."""
    if state.awaiting is None:
        raise ValueError("only a task waiting for an agent can be paused")
    point = Pause(phase=state.phase, awaiting=state.awaiting, reason=reason)
    kind = CommentKind.STOPPED if stopped else CommentKind.BLOCKED
    data = {"reason": reason, "resume": "/agentium retry"}
    comments = _blocked_comments(state, kind, data)
    ended = _end(state, ctx, Phase.BLOCKED, reason).model_copy(update={"paused": point})
    label: tuple[Effect, ...] = () if stopped else (SetLabel(BLOCKED_LABEL),)
    return Transition(ended, (*comments, *label, status(ended), Finish(Phase.BLOCKED)))


def resume(state: WorkflowState, ctx: Context, user: str) -> Transition:
    """Continue a paused task with the call it was waiting for."""
    point = state.paused
    if point is None:
        raise ValueError("the task is not paused")
    resumed = state.model_copy(
        update={"phase": point.phase, "awaiting": point.awaiting, "paused": None, "end_reason": ""}
    )
    resumed = record(resumed, ctx, Role.HUMAN, f"Resumed by @{user}" if user else "Resumed")
    effects = (
        SetLabel(BLOCKED_LABEL, present=False),
        status(resumed),
        request(resumed, ctx.limits),
    )
    return Transition(resumed, effects)


def complete(state: WorkflowState, ctx: Context) -> Transition:
    """COMPLETE: NOMERGE when the controller overrode the judge (in this review round),
    otherwise mark ready."""
    if state.controller_overrode:
        overrides = state.round_overrides
        reasons = "; ".join(o.describe() for o in overrides)
        redraft = state.review_round is not None and state.review_round.was_ready
        final: Effect = PostNomerge(reason=reasons, overrides=overrides, redraft=redraft)
        how = f"NOMERGE, PR left draft ({reasons})"
    else:
        final = MarkReady()
        how = "PR marked ready for review"
    ended = _end(state, ctx, Phase.COMPLETE, how)
    return Transition(ended, (final, status(ended), Finish(Phase.COMPLETE)))


def nothing_to_do(state: WorkflowState, ctx: Context, reason: str) -> Transition:
    """The PLAN worker found nothing to do: comment on the issue, no PR."""
    ended = _end(state, ctx, Phase.NOTHING_TO_DO, reason)
    comment = PostComment(Target.ISSUE, CommentKind.NOTHING_TO_DO, {"reason": reason})
    return Transition(ended, (comment, status(ended), Finish(Phase.NOTHING_TO_DO)))
