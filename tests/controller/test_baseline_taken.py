"""A baseline taken beside the first PLAN call (``BaselineTaken``), through ``step``: it is
kept in any phase once the task started, refreshes the status comment while the task runs,
and gates IMPLEMENT exactly as one passed in ``Start``."""

from __future__ import annotations

import pytest

from tests.controller.controller_support import NOW, of_type
from tests.controller.test_gate import BROKE_ONE, PASSING, TO_SIMPLE, implement, run
from tests.controller.test_transitions import comments
from workers.controller.effects import CommentKind, RunAgent
from workers.controller.errors import OutcomeMismatch
from workers.controller.limits import Limits
from workers.controller.outcomes import BaselineTaken, WorkerDone
from workers.controller.phases import Phase
from workers.controller.state import WorkflowState
from workers.controller.transitions import step

NOTHING = WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO the issue is already done")


def test_before_the_start_a_baseline_is_a_mismatch() -> None:
    with pytest.raises(OutcomeMismatch):
        step(WorkflowState(), BaselineTaken(PASSING), Limits(), now=NOW)


def test_during_plan_it_is_kept_and_the_status_refreshed_while_plan_still_waits() -> None:
    started = run(None, [])
    taken = step(started.state, BaselineTaken(PASSING), Limits(), now=NOW)
    assert taken.state.baseline == PASSING
    assert taken.state.awaiting == started.state.awaiting  # the PLAN call still counts
    assert comments(taken, CommentKind.STATUS) and not of_type(taken.effects, RunAgent)
    after = step(taken.state, NOTHING, Limits(), now=NOW)
    assert after.state.baseline == PASSING


def test_a_late_baseline_gates_implement_as_one_given_at_the_start() -> None:
    started = run(None, [])
    taken = step(started.state, BaselineTaken(PASSING), Limits(), now=NOW).state
    never = run(None, []).state
    for outcome in [*TO_SIMPLE, *implement(BROKE_ONE)]:
        taken = step(taken, outcome, Limits(), now=NOW).state
        never = step(never, outcome, Limits(), now=NOW).state
    early = run(PASSING, [*TO_SIMPLE, *implement(BROKE_ONE)])
    assert taken.phase is Phase.IMPLEMENT and taken.iteration == 2  # the gate held it back
    assert (early.state.phase, early.state.iteration) == (taken.phase, taken.iteration)
    assert never.phase is Phase.DOCS  # no baseline: no gate


def test_once_the_task_ended_it_is_kept_without_a_comment() -> None:
    ended = step(run(None, []).state, NOTHING, Limits(), now=NOW).state
    assert ended.phase.is_terminal
    taken = step(ended, BaselineTaken(PASSING), Limits(), now=NOW)
    assert taken.state.baseline == PASSING and taken.effects == ()
