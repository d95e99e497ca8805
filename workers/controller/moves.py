"""The controller's moves: start an iteration, advance, block, pause, complete.

Each takes the state and returns a :class:`Transition`; none performs I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from workers.controller import memory
from workers.controller.anchor import anchor_of
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    PostComment,
    PostNomerge,
    RunAgent,
    Session,
    SetLabel,
    Target,
    TaskPointer,
)
from workers.controller.guidance import guidance_for
from workers.controller.limits import Limits
from workers.controller.phases import OverrideRule, Path, Phase, Role, Verdict, next_phase
from workers.controller.plan import count_tasks
from workers.controller.routing import routing_key
from workers.controller.state import (
    Awaiting,
    Feedback,
    HistoryEntry,
    Override,
    Pause,
    WorkflowState,
)

EXCERPT_CHARS = 200


@dataclass(frozen=True)
class Transition:
    state: WorkflowState
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Context:
    limits: Limits
    now: datetime


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return excerpt(line, 80)


def record(
    state: WorkflowState,
    ctx: Context,
    role: Role,
    summary: str,
    *,
    verdict: Verdict | None = None,
    detail: str = "",
) -> WorkflowState:
    """Append a history entry for the current phase and iteration."""
    entry = HistoryEntry(
        phase=state.phase,
        iteration=state.iteration,
        of=ctx.limits.max_iterations(state.path, state.phase) if not state.phase.is_terminal else 0,
        role=role,
        verdict=verdict,
        summary=summary,
        excerpt=excerpt(detail),
        at=ctx.now,
        round=state.round,
    )
    return state.model_copy(update={"history": (*state.history, entry)})


def _session(state: WorkflowState, awaiting: Awaiting) -> Session:
    if awaiting.role is Role.JUDGE and awaiting.reask:
        return Session.CONTINUE
    later_simple = state.path is Path.SIMPLE and (state.phase, state.iteration) not in (
        (Phase.PLAN, 1),
        (Phase.IMPLEMENT, 1),
    )
    if awaiting.role is Role.WORKER and later_simple:
        return Session.CONTINUE
    return Session.NEW


def walks_tasks(state: WorkflowState) -> bool:
    """The first COMPLEX IMPLEMENT iteration runs the plan's tasks one worker at a time.

    Not in a review round: there the review is the work, in one worker.
    """
    first = state.phase is Phase.IMPLEMENT and state.iteration == 1 and state.round == 0
    return first and state.path is Path.COMPLEX and state.total_tasks > 1


def request(state: WorkflowState, limits: Limits) -> RunAgent:
    """The agent call the task is waiting for, rebuilt from the state alone."""
    awaiting = state.awaiting
    if awaiting is None:
        raise ValueError(f"the task waits for no agent (phase {state.phase})")
    is_worker = awaiting.role is Role.WORKER
    task = TaskPointer(state.task_index, state.total_tasks) if walks_tasks(state) else None
    return RunAgent(
        role=awaiting.role,
        phase=state.phase,
        iteration=state.iteration,
        max_iterations=limits.max_iterations(state.path, state.phase),
        routing_key=routing_key(awaiting.role, state.phase, strong=awaiting.reask),
        session=_session(state, awaiting),
        feedback=state.feedback if is_worker else None,
        task=task if is_worker else None,
        reask=awaiting.reask,
        guidance=guidance_for(state, awaiting, limits),
    )


def wait_for(state: WorkflowState, ctx: Context, role: Role, *, reask: bool = False) -> Transition:
    waiting = state.model_copy(update={"awaiting": Awaiting(role=role, reask=reask)})
    return Transition(waiting, (request(waiting, ctx.limits),))


def status(state: WorkflowState | None = None) -> PostComment:
    """Refresh the status comment; ``data["spend"]`` is the spend summary ("" if none)."""
    spend = state.spend.summary() if state is not None else ""
    return PostComment(Target.ISSUE, CommentKind.STATUS, {"spend": spend})


def enter_iteration(
    state: WorkflowState, ctx: Context, phase: Phase, iteration: int, feedback: Feedback | None
) -> Transition:
    """Start ``iteration`` of ``phase`` with a worker call."""
    entered = state.model_copy(
        update={
            "phase": phase,
            "iteration": iteration,
            "iterations": {**state.iterations, phase: iteration},
            "task_index": 0,
            "iteration_commits": False,
            "review": "",
            "feedback": feedback,
        }
    )
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
        done = done.model_copy(update={"total_tasks": count_tasks(plan)})
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
