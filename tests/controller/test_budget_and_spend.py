"""Budget exhaustion ends the task BLOCKED everywhere; spend is summed and shown in the status."""

from __future__ import annotations

import json

import pytest

from tests.controller.controller_support import NOW, drive, of_type
from tests.controller.test_transitions import (
    PLAN_TEXT,
    REVIEW,
    TO_DOCS,
    TO_IMPLEMENT,
    TO_SIMPLE,
    comments,
    judge,
    work,
)
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    Finish,
    MarkReady,
    PostComment,
    PostNomerge,
    RunAgent,
    SetLabel,
    Target,
)
from workers.controller.errors import OutcomeMismatch
from workers.controller.limits import Limits
from workers.controller.outcomes import (
    BudgetExceeded,
    Command,
    HumanCommand,
    HumanReview,
    JudgeDone,
    Outcome,
    WorkerDone,
)
from workers.controller.phases import Phase, Role
from workers.controller.spend import Spend, Usage, add_usage, with_usage
from workers.controller.state import WorkflowState
from workers.controller.transitions import step

FIGURES = "dollars $5.02 of $5.00"
READY = [*TO_DOCS, work(), REVIEW, judge("ADVANCE")]


# --- budget exhaustion --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "role", "phase"),
    [
        ([], Role.WORKER, Phase.PLAN),
        ([WorkerDone(PLAN_TEXT)], Role.ASSESSOR, Phase.PLAN),  # not COMPLEX, unlike a failure
        (TO_IMPLEMENT[:-2], Role.REVIEWER, Phase.PLAN),
        (TO_IMPLEMENT[:-1], Role.JUDGE, Phase.PLAN),
        (TO_SIMPLE, Role.WORKER, Phase.IMPLEMENT),
        ([*TO_IMPLEMENT, work()], Role.REVIEWER, Phase.IMPLEMENT),
        ([*TO_IMPLEMENT, work(), REVIEW, JudgeDone("hm")], Role.JUDGE, Phase.IMPLEMENT),  # re-ask
        (TO_DOCS, Role.WORKER, Phase.DOCS),  # not a forced ADVANCE, unlike a failure
        ([*TO_DOCS, work(), REVIEW], Role.JUDGE, Phase.DOCS),
        ([*READY, HumanReview("fix", "alice")], Role.WORKER, Phase.IMPLEMENT),  # review round
    ],
)
def test_budget_exceeded_blocks_in_every_phase(
    before: list[Outcome], role: Role, phase: Phase
) -> None:
    running = drive(before)
    assert running.state.phase is phase and running.state.awaiting is not None
    assert running.state.awaiting.role is role
    t = step(running.state, BudgetExceeded(role, FIGURES), Limits(), now=NOW)
    assert t.state.phase is Phase.BLOCKED and t.state.paused is None
    assert FIGURES in t.state.end_reason and "budget exceeded" in t.state.end_reason
    blocked = comments(t, CommentKind.BLOCKED)
    assert blocked[0].data["budget"] == FIGURES and FIGURES in blocked[0].data["reason"]
    assert {c.target for c in blocked} == (
        {Target.ISSUE, Target.PR} if t.state.pr_open else {Target.ISSUE}
    )
    assert SetLabel(BLOCKED_LABEL) in t.effects and t.effects[-1] == Finish(Phase.BLOCKED)
    assert not of_type(t.effects, MarkReady) and not of_type(t.effects, PostNomerge)
    assert not of_type(t.effects, RunAgent) and not t.state.controller_overrode
    retry = step(t.state, HumanCommand(Command.RETRY), Limits(), now=NOW)
    assert retry.state == t.state and comments(retry, CommentKind.COMMAND_REPLY)


def test_budget_exceeded_names_the_awaited_agent_or_the_controller() -> None:
    running = drive(TO_IMPLEMENT)
    with pytest.raises(OutcomeMismatch):
        step(running.state, BudgetExceeded(Role.JUDGE, FIGURES), Limits(), now=NOW)
    t = step(
        running.state, BudgetExceeded(Role.CONTROLLER, "time 3,700 s of 3,600 s"), Limits(), now=NOW
    )
    assert t.state.phase is Phase.BLOCKED and "(worker)" not in t.state.end_reason
    done = drive(READY).state
    with pytest.raises(OutcomeMismatch):
        step(done, BudgetExceeded(Role.CONTROLLER, FIGURES), Limits(), now=NOW)


def test_the_blocked_comment_carries_the_spend() -> None:
    running = with_usage(drive(TO_IMPLEMENT).state, Usage(input_tokens=1000, cost_usd=5.02))
    t = step(running, BudgetExceeded(Role.WORKER, FIGURES), Limits(), now=NOW)
    (comment,) = comments(t, CommentKind.BLOCKED)
    assert comment.data["spend"].startswith("1,000 tokens") and "$5.02" in comment.data["spend"]


# --- spend --------------------------------------------------------------------------------


def test_add_usage_sums_the_figures_and_keeps_the_input() -> None:
    empty = Spend()
    once = add_usage(empty, Usage(input_tokens=100, output_tokens=20, cost_usd=0.5), model="opus")
    twice = add_usage(
        once,
        Usage(cache_write_tokens=7, cache_read_tokens=3, cost_usd=0.25),
        model="haiku",
        seconds=2.5,
    )
    assert empty == Spend() and once.calls == 1
    assert (twice.input_tokens, twice.output_tokens, twice.cache_write_tokens) == (100, 20, 7)
    assert (twice.cache_read_tokens, twice.total_tokens, twice.calls) == (3, 130, 2)
    assert twice.cost_usd == pytest.approx(0.75) and twice.seconds == 2.5
    assert twice.by_model["opus"] == Spend(
        input_tokens=100, output_tokens=20, cost_usd=0.5, calls=1
    )
    assert twice.by_model["haiku"].total_tokens == 10
    assert add_usage(Spend(), Usage(input_tokens=1)).by_model == {}


def test_spend_summary() -> None:
    assert Spend().summary() == ""
    one = add_usage(Spend(), Usage(input_tokens=1200, output_tokens=34, cost_usd=0.1234), model="m")
    assert one.summary() == "1,234 tokens (in 1,200, out 34, cache 0), $0.12 in 1 call(s)"
    two = add_usage(one, Usage(output_tokens=6, cost_usd=1.0), model="a")
    assert two.summary().endswith("(a: 6 tokens, $1.00; m: 1,234 tokens, $0.12)")


def test_the_status_effect_carries_the_spend() -> None:
    state = with_usage(drive(TO_IMPLEMENT).state, Usage(input_tokens=10, cost_usd=0.01), model="m")
    t = step(state, HumanCommand(Command.STATUS), Limits(), now=NOW)
    assert t.effects == (
        PostComment(Target.ISSUE, CommentKind.STATUS, {"spend": state.spend.summary()}),
    )
    moved = step(state, work(), Limits(), now=NOW)
    assert moved.state.spend == state.spend  # step never changes the spend
    ended = drive([REVIEW, judge("BLOCKED", "no")], state=moved.state)
    (status,) = comments(ended, CommentKind.STATUS)
    assert status.data["spend"].startswith("10 tokens")
    assert all("spend" in c.data for c in comments(drive([]), CommentKind.STATUS))


# --- stored state -------------------------------------------------------------------------


def test_a_state_stored_before_review_rounds_and_spend_loads() -> None:
    old = {
        "schema_version": 1,
        "phase": "COMPLETE",
        "iteration": 1,
        "path": "SIMPLE",
        "pr_open": True,
        "has_commits": True,
        "controller_overrode": True,
        "overrides": [{"phase": "IMPLEMENT", "iteration": 2, "rule": "max_iterations"}],
        "feedback": {"review": "r", "judge": "j"},
        "history": [{"phase": "PLAN", "iteration": 1, "role": "WORKER", "summary": "plan"}],
    }
    state = WorkflowState.model_validate_json(json.dumps(old))
    assert state.spend == Spend() and state.review_rounds == () and state.round == 0
    assert state.overrides[0].round == 0 and state.round_overrides == state.overrides
    assert state.history[0].round == 0 and state.feedback is not None
    assert state.feedback.human == ""
    assert state.pr_result == "nomerge"
    reopened = step(state, HumanReview("fix", "alice", ("r-1",)), Limits(), now=NOW)
    assert reopened.state.round == 1 and not reopened.state.controller_overrode


def test_spend_and_rounds_survive_a_json_round_trip() -> None:
    state = drive([*READY, HumanReview("fix", "alice", ("r-1",))]).state
    state = with_usage(state, Usage(input_tokens=5, cost_usd=0.2), model="opus", seconds=1.5)
    assert WorkflowState.model_validate_json(state.model_dump_json()) == state


def test_a_ledger_written_before_the_one_usage_model_still_loads() -> None:
    old = {"usage": {"input_tokens": 7, "cost_usd": 0.5}, "seconds": 3.0, "calls": 2}
    spend = Spend.model_validate_json(json.dumps(old))
    assert (spend.input_tokens, spend.cost_usd, spend.seconds, spend.calls) == (7, 0.5, 3.0, 2)
