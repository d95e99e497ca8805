"""The recovery ladder's small moves, shared by :mod:`ladder` and :mod:`doctor`.

Each takes the state and returns the new state or a :class:`Transition`; none does I/O.
"""

from __future__ import annotations

from typing import Any

from workers.controller.calls import wait_for
from workers.controller.core import Context, Transition, excerpt, first_line, record
from workers.controller.failures import Failure, FailureKind
from workers.controller.ladder_state import LadderStep, RecoveryAction
from workers.controller.limits import Limits
from workers.controller.moves import block, enter_iteration, force_advance
from workers.controller.outcomes import AgentFailed
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.recovery import Situation, replans_left
from workers.controller.state import WorkflowState

LADDER_ROLES = frozenset({Role.DOCTOR, Role.REPLANNER})


def with_recovery(state: WorkflowState, **update: Any) -> WorkflowState:
    return state.model_copy(update={"recovery": state.recovery.model_copy(update=update)})


def ladder_step(
    state: WorkflowState, ctx: Context, action: RecoveryAction, detail: str = ""
) -> WorkflowState:
    """Record a ladder step: in the recovery's steps (metrics, dashboard) and the history."""
    taken = LadderStep(
        action=action,
        phase=state.phase,
        iteration=state.iteration,
        round=state.round,
        detail=excerpt(detail),
    )
    noted = with_recovery(state, steps=(*state.recovery.steps, taken))
    said = f"Recovery: {action}" + (f" ({first_line(detail)})" if detail.strip() else "")
    return record(noted, ctx, Role.CONTROLLER, said, detail=detail)


def add_failure(state: WorkflowState, failure: Failure) -> WorkflowState:
    return state.model_copy(update={"recovery": state.recovery.with_failure(failure)})


def agent_failure(state: WorkflowState, failed: AgentFailed) -> Failure:
    kind = FailureKind.INFRA if failed.infrastructure else FailureKind.AGENT
    text = f"the {failed.role.lower()} could not be run: {failed.error}"
    return Failure.of(kind, state.phase, state.iteration, text, round=state.round)


def next_iteration(state: WorkflowState, ctx: Context) -> Transition:
    """The phase's next iteration, with the feedback kept in ``state.feedback``."""
    return enter_iteration(state, ctx, state.phase, state.iteration + 1, state.feedback)


def stop(state: WorkflowState, ctx: Context, reason: str) -> Transition:
    """STOP: BLOCKED; in DOCS, which never blocks, a forced ADVANCE (NOMERGE)."""
    if state.phase is Phase.DOCS:
        return force_advance(state, ctx, OverrideRule.DOCS_BLOCKED, reason)
    return block(state, ctx, reason)


def can_replan(state: WorkflowState, limits: Limits) -> bool:
    return replans_left(state.recovery.replans, state.phase, limits.recovery)


def ask_replanner(state: WorkflowState, ctx: Context, why: str) -> Transition:
    """REPLAN: a revision of the phase's approach, asked with the anchor and the failures."""
    recovery = state.recovery
    replans = {**recovery.replans, state.phase: recovery.replans.get(state.phase, 0) + 1}
    total, most = sum(replans.values()), ctx.limits.recovery.replans_per_task
    counted = with_recovery(state, replans=replans)
    counted = with_recovery(counted, budgets=budgets(counted, ctx.limits))
    noted = ladder_step(counted, ctx, RecoveryAction.REPLAN, f"{why}; replan {total} of {most}")
    return wait_for(noted, ctx, Role.REPLANNER)


def budgets(state: WorkflowState, limits: Limits) -> str:
    """The ladder's budgets as used so far, for the status comment and the dashboard."""
    recovery = state.recovery
    replans = f"{sum(recovery.replans.values())} of {limits.recovery.replans_per_task} replans"
    return f"{recovery.doctor.describe(limits.recovery.doctor)}; {replans}"


def budget_used(state: WorkflowState, limits: Limits) -> float:
    """The largest share used of the phase's iterations and of the task's spend budget."""
    shares = [state.iteration / limits.max_iterations(state.path, state.phase)]
    caps, spend = limits.recovery.budget, state.spend
    if caps is not None:
        for used, cap in (
            (spend.total_tokens, caps.max_tokens),
            (spend.cost_usd, caps.max_dollars),
            (spend.seconds, caps.max_seconds),
        ):
            if cap:
                shares.append(used / cap)
    return max(shares)


def situation(state: WorkflowState, limits: Limits, same_failures: int) -> Situation:
    recovery, where = state.recovery, (state.phase, state.round)
    scope = recovery.scope
    return Situation(
        same_failures=same_failures,
        budget_used=budget_used(state, limits),
        scope_reduced=scope is not None and (scope.phase, scope.round) == where,
        escalation_left=limits.recovery.escalation and recovery.escalated is None,
        replans_left=can_replan(state, limits),
        human_asked=recovery.asked(*where),
    )
