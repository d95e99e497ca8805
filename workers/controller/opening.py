"""How a task opens: ``Start`` runs the first PLAN worker; ``BaselineTaken`` keeps the
test command's run on the base commit when it was taken beside that first call.

The live bot starts the task without waiting for the baseline (on a real repository it
takes seconds to minutes, and PLAN does not need it: docs/design.md §12); the run arrives
as ``BaselineTaken`` once it is ready, in whatever phase the task is by then, and the
status comment's quality-gate row is refreshed. Local mode and the simulator still pass
it in ``Start``.
"""

from __future__ import annotations

from workers.controller import ladder
from workers.controller.core import Transition, status
from workers.controller.errors import OutcomeMismatch
from workers.controller.moves import Context, enter_iteration
from workers.controller.outcomes import BaselineTaken, Start
from workers.controller.phases import Phase
from workers.controller.state import WorkflowState


def on_opening(state: WorkflowState, ctx: Context, outcome: Start | BaselineTaken) -> Transition:
    if isinstance(outcome, BaselineTaken):
        return on_baseline(state, outcome)
    if state.started:
        raise OutcomeMismatch("the task has already started")
    baselined = state.model_copy(update={"baseline": outcome.baseline})
    return enter_iteration(ladder.on_start(baselined, outcome), ctx, Phase.PLAN, 1, None)


def on_baseline(state: WorkflowState, taken: BaselineTaken) -> Transition:
    """Keep the run; the status comment shows the gate's state (not once the task ended:
    its last status stands)."""
    if not state.started:
        raise OutcomeMismatch("a baseline before the task started")
    kept = state.model_copy(update={"baseline": taken.run})
    if state.phase.is_terminal:
        return Transition(kept)
    return Transition(kept, (status(kept),))
