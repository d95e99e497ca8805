"""A push or a GitHub call failed after the agent's work was done (docs/design.md §9).

The engine keeps the effects not yet performed with the task and performs them before
the next agent call; here the controller decides what the task does meanwhile:

| the task                         | then                                                    |
|----------------------------------|---------------------------------------------------------|
| ended or paused (nothing awaited)| the failure in the history; the effects wait            |
| awaits an agent, doctor due      | the doctor at once (an infrastructure diagnosis); after |
|                                  | it, the awaited call (the effects retried first)        |
| awaits an agent, no doctor, under| carry on: the awaited call, the effects retried first   |
| ``effect_failures`` in a row     |                                                         |
| the same, at the limit           | pause BLOCKED with the error (``/agentium retry``)      |

A failure counts once per failed attempt; the count starts again when an agent's work
arrives, which the engine only runs once nothing is pending.
"""

from __future__ import annotations

from workers.controller import doctor
from workers.controller.calls import request
from workers.controller.core import Context, Transition, first_line, record, status
from workers.controller.failures import Failure, FailureKind
from workers.controller.ladder_moves import LADDER_ROLES, add_failure, with_recovery
from workers.controller.moves import pause
from workers.controller.outcomes import (
    AssessorDone,
    EffectsFailed,
    JudgeDone,
    Outcome,
    ReviewerDone,
    WaveJoined,
    WorkerDone,
)
from workers.controller.phases import Role
from workers.controller.state import WorkflowState

WHAT = {"push": "push to the task branch", "github": "GitHub API call"}
DIAGNOSED = (Role.WORKER, Role.REVIEWER, Role.JUDGE, Role.ASSESSOR)
WORK = (WorkerDone, ReviewerDone, JudgeDone, AssessorDone, WaveJoined)


def settled(state: WorkflowState, outcome: Outcome) -> WorkflowState:
    """An agent's work arrived, so nothing was pending: the count starts again."""
    if isinstance(outcome, WORK) and state.recovery.effect_failures:
        return with_recovery(state, effect_failures=0)
    return state


def on_failed(state: WorkflowState, ctx: Context, failed: EffectsFailed) -> Transition:
    count = state.recovery.effect_failures + 1
    what = WHAT.get(failed.what, failed.what)
    said = f"The {what} failed ({count} in a row): {first_line(failed.error)}"
    noted = record(
        with_recovery(state, effect_failures=count), ctx, Role.CONTROLLER, said, detail=failed.error
    )
    awaiting = noted.awaiting
    if awaiting is None or noted.paused is not None:
        return Transition(noted, (status(noted),))
    text = f"the {what} failed: {failed.error}"
    noted = add_failure(
        noted, Failure.of(FailureKind.INFRA, noted.phase, noted.iteration, text, round=noted.round)
    )
    diagnosable = awaiting.wave == 0 and awaiting.role in DIAGNOSED
    if diagnosable and doctor.due(noted, ctx, infrastructure=True):
        resumed = with_recovery(noted, resume=awaiting.role, resume_reask=awaiting.reask)
        return doctor.ask(resumed, ctx)
    if count >= ctx.limits.recovery.effect_failures and awaiting.role not in LADDER_ROLES:
        reason = f"the {what} keeps failing ({count} times in a row): {failed.error}"
        return pause(noted, ctx, reason, stopped=False)
    return Transition(noted, (status(noted), request(noted, ctx.limits)))
