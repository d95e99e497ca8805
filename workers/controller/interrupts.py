"""Outcomes that interrupt the loop: agent failures, budgets, and ``/agentium`` commands.

| outcome        | rule                                                                  |
|----------------|-----------------------------------------------------------------------|
| AgentFailed    | assessor: COMPLEX; infrastructure (not in a wave): the doctor when    |
|                | due; DOCS: forced ADVANCE (NOMERGE); else pause BLOCKED               |
| BudgetExceeded | BLOCKED in every phase, for every role; final, not a pause            |
| HumanCommand   | stop: pause; retry: resume a pause; status: refresh the status        |
"""

from __future__ import annotations

from collections.abc import Callable

from workers.controller import doctor
from workers.controller.effects import CommentKind, PostComment, Target
from workers.controller.ladder_moves import LADDER_ROLES, add_failure, agent_failure
from workers.controller.moves import Context, Transition, block, force_advance, pause, resume
from workers.controller.moves import status as status_comment
from workers.controller.outcomes import AgentFailed, BudgetExceeded, Command, HumanCommand
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.state import WorkflowState

AssessorFailure = Callable[[WorkflowState, Context], Transition]


def on_failure(
    state: WorkflowState, ctx: Context, failed: AgentFailed, assessor_failed: AssessorFailure
) -> Transition:
    """An agent could not be run; ``assessor_failed`` applies the assessor's COMPLEX rule.

    The failure goes into the recovery ladder's history; an infrastructure failure asks
    the doctor first, when due (docs/design.md §9); a failed doctor or replanner call is
    carried on without. A wave's reviewer or judge is not the ladder's: its failure pauses
    the task as any other (docs/design.md §8).
    """
    if failed.role is Role.ASSESSOR:
        return assessor_failed(state, ctx)
    if failed.role in LADDER_ROLES:
        return doctor.call_failed(state, ctx, failed)
    in_wave = state.awaiting is not None and state.awaiting.wave > 0
    if not in_wave:
        state = add_failure(state, agent_failure(state, failed))
        asked = doctor.for_infrastructure(state, ctx, failed) if failed.infrastructure else None
        if asked is not None:
            return asked
    reason = f"the {failed.role.lower()} could not be run: {failed.error}"
    if state.phase is Phase.DOCS:
        return force_advance(state, ctx, OverrideRule.DOCS_AGENT_FAILED, reason)
    return pause(state, ctx, reason, stopped=False)


def on_budget(state: WorkflowState, ctx: Context, exceeded: BudgetExceeded) -> Transition:
    """A budget is used up: BLOCKED with the figures (``budget``) and the spend in the comment."""
    who = "" if exceeded.role is Role.CONTROLLER else f" ({exceeded.role.lower()})"
    reason = f"budget exceeded{who}: {exceeded.detail}"
    extra = {"budget": exceeded.detail, "spend": state.spend.summary()}
    return block(state, ctx, reason, extra)


def _reply(state: WorkflowState, text: str) -> Transition:
    return Transition(
        state, (PostComment(Target.ISSUE, CommentKind.COMMAND_REPLY, {"text": text}),)
    )


def on_command(state: WorkflowState, ctx: Context, command: HumanCommand) -> Transition:
    if command.command is Command.STATUS:
        return Transition(state, (status_comment(state),))
    if command.command is Command.RETRY:
        if state.phase is Phase.BLOCKED and state.paused is not None:
            return resume(state, ctx, command.user)
        return _reply(state, "Nothing to retry: the task is not paused by an error or a stop.")
    if state.awaiting is None or state.phase.is_terminal:
        return _reply(state, "Nothing to stop: no step of this task is running.")
    who = f"@{command.user}" if command.user else "a user"
    return pause(state, ctx, f"stopped by {who}", stopped=True)
