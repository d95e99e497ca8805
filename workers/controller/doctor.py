"""The doctor: a diagnostic call on the phase's failure history (docs/design.md §9).

It is asked after ``min_attempts`` failed attempts of a phase when the stuck table has
nothing to do (different failures), and at once after an infrastructure failure (the
model's service failing), within its budgets (per phase, per task, strong calls,
infrastructure calls). The cheap model answers first; without a usable
``AGENTIUM_DOCTOR:`` line the strong one is asked, if its budget allows. Its action:

| action            | the controller                                                     |
|-------------------|--------------------------------------------------------------------|
| retry_with_fix    | the next worker call gets the doctor's text as a hint               |
| replan            | the replanner, if a replan is left (else the text is a hint)        |
| fatal             | BLOCKED with the doctor's reason (DOCS: a forced ADVANCE)           |
| rollback_provider | the failed role uses its fallback route for the rest of the task    |
| (no usable answer)| carry on as if it had not been asked                                |

After an infrastructure failure "carry on" is the failed call again; after a failed
iteration it is the next iteration.
"""

from __future__ import annotations

from workers.controller import signals
from workers.controller.calls import wait_for
from workers.controller.core import Context, Transition, first_line, record
from workers.controller.ladder_moves import (
    ask_replanner,
    budgets,
    can_replan,
    ladder_step,
    next_iteration,
    stop,
    with_recovery,
)
from workers.controller.ladder_state import RecoveryAction, note
from workers.controller.outcomes import AgentFailed, DoctorDone
from workers.controller.phases import Role
from workers.controller.recovery import DoctorAction, doctor_due, strong_doctor_allowed
from workers.controller.state import WorkflowState


def due(state: WorkflowState, ctx: Context, *, infrastructure: bool) -> bool:
    recovery = state.recovery
    attempts = len({f.iteration for f in recovery.phase_failures(state.phase, state.round)})
    limits = ctx.limits.recovery.doctor
    return doctor_due(
        recovery.doctor,
        limits,
        state.phase,
        failed_attempts=attempts,
        infrastructure=infrastructure,
    )


def ask(state: WorkflowState, ctx: Context, *, strong: bool = False) -> Transition:
    """One diagnostic call (counted when asked): cheap, or strong after an unusable answer
    (the strong call counts as a call and a strong call, not as another diagnosis)."""
    infrastructure, calls = state.recovery.resume is not None, state.recovery.doctor
    calls = (
        calls.plus_strong()
        if strong
        else calls.plus(state.phase, strong=False, infrastructure=infrastructure)
    )
    counted = with_recovery(state, doctor=calls)
    counted = with_recovery(counted, budgets=budgets(counted, ctx.limits))
    model = "strong" if strong else "cheap"
    why = "an infrastructure failure" if infrastructure else "failed attempts"
    limits = ctx.limits.recovery.doctor
    detail = f"{model} model, after {why}; call {calls.total} of {limits.per_task}"
    noted = ladder_step(counted, ctx, RecoveryAction.DOCTOR, detail)
    return wait_for(noted, ctx, Role.DOCTOR, reask=strong)


def for_infrastructure(
    state: WorkflowState, ctx: Context, failed: AgentFailed
) -> Transition | None:
    """After an infrastructure failure of ``failed.role``: the doctor, if due; else None."""
    if failed.role not in (Role.WORKER, Role.REVIEWER, Role.JUDGE):
        return None
    if not due(state, ctx, infrastructure=True):
        return None
    reask = state.awaiting.reask if state.awaiting else False
    return ask(with_recovery(state, resume=failed.role, resume_reask=reask), ctx)


def carry_on(state: WorkflowState, ctx: Context) -> Transition:
    """The failed call again (after an infrastructure failure), or the next iteration."""
    role, reask = state.recovery.resume, state.recovery.resume_reask
    if role is None:
        return next_iteration(state, ctx)
    return wait_for(with_recovery(state, resume=None, resume_reask=False), ctx, role, reask=reask)


def on_doctor(state: WorkflowState, ctx: Context, done: DoctorDone) -> Transition:
    advice = signals.parse_doctor(done.text)
    strong = state.awaiting is not None and state.awaiting.reask
    said = f"Doctor: {advice.action} {first_line(advice.text)}" if advice else "Doctor: no action"
    noted = record(state, ctx, Role.DOCTOR, said.strip(), detail=done.text or "")
    if advice is None:
        limits = ctx.limits.recovery.doctor
        if not strong and strong_doctor_allowed(noted.recovery.doctor, limits):
            return ask(noted, ctx, strong=True)
        return carry_on(noted, ctx)
    return _act(noted, ctx, advice)


def _act(state: WorkflowState, ctx: Context, advice: signals.DoctorAdvice) -> Transition:
    action, text = advice.action, advice.text or "(no detail given)"
    retrying = state.recovery.resume is not None
    if action is DoctorAction.REPLAN and not retrying and can_replan(state, ctx.limits):
        return ask_replanner(state, ctx, f"the doctor: {text}")
    if action is DoctorAction.FATAL:
        noted = ladder_step(state, ctx, RecoveryAction.FATAL, text)
        return stop(with_recovery(noted, resume=None), ctx, f"the doctor found it fatal: {text}")
    if action is DoctorAction.ROLLBACK_PROVIDER:
        role = state.recovery.resume or Role.WORKER
        fallback = tuple(dict.fromkeys((*state.recovery.fallback, role)))
        moved = with_recovery(state, fallback=fallback)
        detail = f"{role.lower()} now uses its fallback route: {text}"
        return carry_on(ladder_step(moved, ctx, RecoveryAction.ROLLBACK_PROVIDER, detail), ctx)
    same_call = state.recovery.resume is Role.WORKER  # a worker's call made again
    iteration = state.iteration if same_call else state.iteration + 1
    hint = note(state.phase, state.round, iteration, text, once=True)
    hinted = ladder_step(with_recovery(state, hint=hint), ctx, RecoveryAction.RETRY_WITH_FIX, text)
    return carry_on(hinted, ctx)


def call_failed(state: WorkflowState, ctx: Context, failed: AgentFailed) -> Transition:
    """The doctor or the replanner could not be run: carry on without them."""
    said = f"The {failed.role.lower()} could not be run ({first_line(failed.error)}): carrying on"
    return carry_on(record(state, ctx, Role.CONTROLLER, said, detail=failed.error), ctx)
