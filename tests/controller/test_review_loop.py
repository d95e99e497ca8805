"""Table tests for the human review loop: a PR review after COMPLETE starts a new round."""

from __future__ import annotations

import pytest

from tests.controller.controller_support import NOW, drive, joined, of_type
from tests.controller.test_transitions import (
    REVIEW,
    TASK_PLAN,
    TO_DOCS,
    TO_SIMPLE,
    agent,
    comments,
    judge,
    plan_complex,
    work,
)
from workers.controller.effects import (
    CommentKind,
    Finish,
    MarkReady,
    PostComment,
    PostNomerge,
    Session,
    Target,
)
from workers.controller.limits import Limits
from workers.controller.memory import MemoryType
from workers.controller.moves import Transition
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    Command,
    HumanCommand,
    HumanReview,
    Outcome,
    WorkerDone,
)
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.review import accepts_review, batch_reviews
from workers.controller.state import WorkflowState
from workers.controller.transitions import pending_agent, step

READY = [*TO_DOCS, work(), REVIEW, judge("ADVANCE")]
NOMERGE = [*TO_SIMPLE, work(), REVIEW, judge("ITERATE"), work(), REVIEW, judge("ITERATE")]
NOMERGE += [work(), REVIEW, judge("ADVANCE")]
ASK = HumanReview("Please rename the flag.\n- rename --x to --exact", "alice", ("r-11", "c-12"))
CLEAN_ROUND: list[Outcome] = [ASK, work(), REVIEW, judge("ADVANCE"), work(), REVIEW]
CLEAN_ROUND.append(judge("ADVANCE", "docs fine"))


def run_all(outcomes: list[Outcome], limits: Limits | None = None) -> list[Transition]:
    """Every transition of a task, from Start."""
    transitions = [drive([], limits)]
    for outcome in outcomes:
        transitions.append(step(transitions[-1].state, outcome, limits or Limits(), now=NOW))
    return transitions


def replies(transitions: list[Transition]) -> list[PostComment]:
    return [c for t in transitions for c in comments(t, CommentKind.REVIEW_REPLY)]


# --- when a review is taken ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "accepted"),
    [
        ([], False),  # PLAN running
        (TO_DOCS, False),  # DOCS running
        (READY, True),  # COMPLETE, ready
        (NOMERGE, True),  # COMPLETE, NOMERGE
        (plan_complex(judge("BLOCKED")), False),  # BLOCKED, final
        ([*TO_DOCS[:-1], AgentFailed(Role.JUDGE, "529")], False),  # BLOCKED, paused
        ([WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO done")], False),
        ([*READY, ASK], False),  # a review round is running
    ],
)
def test_accepts_review_only_when_complete_with_a_pr(
    outcomes: list[Outcome], accepted: bool
) -> None:
    state = drive(outcomes).state
    assert accepts_review(state) is accepted
    t = step(state, ASK, Limits(), now=NOW)
    if not accepted:  # not an error: nothing happens, the caller keeps the review queued
        assert t.state == state and t.effects == ()


def test_a_review_starts_implement_with_a_fresh_worker_and_the_review_as_feedback() -> None:
    t = drive([*READY, ASK])
    run = agent(t)
    assert (run.role, run.phase, run.iteration, run.session) == (
        Role.WORKER,
        Phase.IMPLEMENT,
        1,
        Session.NEW,
    )
    assert run.max_iterations == 5 and run.wave is None
    assert run.feedback is not None
    assert (run.feedback.review, run.feedback.human) == (ASK.text, "alice")
    assert "@alice" in run.feedback.judge
    assert comments(t, CommentKind.STATUS) and not replies([t])
    state = t.state
    assert state.round == 1 and state.review_round is not None
    assert (state.review_round.user, state.review_round.reviews) == ("alice", ("r-11", "c-12"))
    assert state.review_round.was_ready and not state.controller_overrode
    human = state.history[-1]
    assert (human.role, human.phase, human.round) == (Role.HUMAN, Phase.COMPLETE, 1)
    assert "r-11" in human.summary
    assert any(e.type is MemoryType.EVAL_FEEDBACK and "@alice" in e.text for e in state.memory)


def test_a_clean_round_ends_ready_and_replies_once() -> None:
    transitions = run_all([*READY, *CLEAN_ROUND])
    final = transitions[-1]
    assert final.state.phase is Phase.COMPLETE and final.state.pr_result == "ready"
    assert of_type(final.effects, MarkReady) and final.effects[-1] == Finish(Phase.COMPLETE)
    (reply,) = replies(transitions[len(READY) + 1 :])
    assert reply.target is Target.PR
    assert {k: reply.data[k] for k in ("round", "reviews", "user", "result", "commits")} == {
        "round": "1",
        "reviews": "r-11,c-12",
        "user": "alice",
        "result": "ready",
        "commits": "true",
    }
    assert "IMPLEMENT: 1 iteration(s)" in reply.data["summary"]
    assert "DOCS: 1 iteration(s)" in reply.data["summary"]
    assert "judge: ADVANCE (docs fine)" in reply.data["summary"]
    assert final.state.iterations[Phase.IMPLEMENT] == 1


def test_a_round_after_nomerge_can_end_ready_and_keeps_the_override_history() -> None:
    before = drive(NOMERGE).state
    assert before.pr_result == "nomerge"
    t = drive(CLEAN_ROUND, state=before)
    assert t.state.pr_result == "ready" and of_type(t.effects, MarkReady)
    assert not t.state.controller_overrode and t.state.round_overrides == ()
    assert [(o.rule, o.round) for o in t.state.overrides] == [(OverrideRule.MAX_ITERATIONS, 0)]
    assert t.state.review_rounds[0].was_ready is False


def test_a_round_has_its_own_limits_and_overrides() -> None:
    simple = drive([*TO_SIMPLE, work(), REVIEW, judge("ADVANCE"), work(), REVIEW])
    done = step(simple.state, judge("ADVANCE"), Limits(), now=NOW).state
    first = drive([ASK], state=done)
    assert agent(first).max_iterations == 2 and agent(first).session is Session.NEW
    second = drive([work(), REVIEW, judge("ITERATE", "more")], state=first.state)
    assert (agent(second).iteration, agent(second).session) == (2, Session.CONTINUE)
    forced = drive([work(), REVIEW, judge("ITERATE")], state=second.state)
    assert forced.state.phase is Phase.DOCS and forced.state.controller_overrode
    assert [(o.phase, o.iteration, o.round) for o in forced.state.overrides] == [
        (Phase.IMPLEMENT, 2, 1)
    ]
    end = drive([work(), REVIEW, judge("ADVANCE")], state=forced.state)
    (nomerge,) = of_type(end.effects, PostNomerge)
    assert nomerge.redraft and [o.round for o in nomerge.overrides] == [1]
    (reply,) = comments(end, CommentKind.REVIEW_REPLY)
    assert reply.data["result"] == "nomerge" and "max_iterations" in reply.data["reason"]


def test_a_round_does_not_walk_the_plan_tasks_again() -> None:
    start = [WorkerDone(TASK_PLAN), AssessorDone(None), REVIEW, judge("ADVANCE")]
    waves = [[joined(n, str(n)), REVIEW, judge("ADVANCE")] for n in (1, 2, 3)]
    done = drive([*start, *[o for wave in waves for o in wave], REVIEW, judge("ADVANCE")])
    done = drive([work(), REVIEW, judge("ADVANCE")], state=done.state)
    assert done.state.phase is Phase.COMPLETE
    round_ = drive([ASK], state=done.state)
    assert agent(round_).wave is None
    assert agent(drive([work()], state=round_.state)).role is Role.REVIEWER


def test_a_round_without_commits_completes_and_says_so() -> None:
    outcomes = [ASK, work(commits=False), REVIEW, judge("ADVANCE"), work(commits=False)]
    t = drive([*outcomes, REVIEW, judge("ADVANCE")], state=drive(READY).state)
    assert t.state.phase is Phase.COMPLETE and t.state.pr_result == "ready"
    (reply,) = comments(t, CommentKind.REVIEW_REPLY)
    assert reply.data["commits"] == "false" and "no new commits" in reply.data["summary"]


def test_a_round_blocked_by_the_judge_replies_with_the_reason() -> None:
    t = drive([ASK, work(), REVIEW, judge("BLOCKED", "cannot rename")], state=drive(READY).state)
    assert t.state.phase is Phase.BLOCKED
    (reply,) = comments(t, CommentKind.REVIEW_REPLY)
    assert reply.data["result"] == "blocked" and "cannot rename" in reply.data["reason"]
    assert t.effects[-1] == Finish(Phase.BLOCKED)


def test_a_pause_in_a_round_is_no_reply_and_retry_finishes_the_round() -> None:
    outcomes: list[Outcome] = [*READY, ASK, work(), AgentFailed(Role.REVIEWER, "529")]
    outcomes += [HumanCommand(Command.RETRY), REVIEW, judge("ADVANCE"), work(), REVIEW]
    transitions = run_all([*outcomes, judge("ADVANCE")])
    paused = transitions[len(READY) + 3]
    assert paused.state.paused is not None and not replies([paused])
    assert len(replies(transitions)) == 1 and transitions[-1].state.pr_result == "ready"


def test_each_round_replies_once_and_scopes_the_judge_directives() -> None:
    second = HumanReview("Also fix the typo.", "bob", ("r-20",))
    outcomes = [*READY, *CLEAN_ROUND, second, work(), REVIEW, judge("ITERATE", "typo")]
    transitions = run_all([*outcomes, work(), REVIEW])
    state = transitions[-1].state
    assert state.round == 2 and state.judge_directives() == ["typo"]
    assert [r.data["round"] for r in replies(transitions)] == ["1"]
    feedback = comments(transitions[-3], CommentKind.FEEDBACK)
    assert feedback[0].data["round"] == "2"
    end = run_all([*outcomes, work(), REVIEW, judge("ADVANCE"), work(), REVIEW, judge("ADVANCE")])
    assert [(r.data["round"], r.data["user"]) for r in replies(end)] == [
        ("1", "alice"),
        ("2", "bob"),
    ]


def test_reviews_queued_while_running_are_batched() -> None:
    first = HumanReview("rename it", "alice", ("r-1",))
    again = HumanReview("and test it", "alice", ("r-2", "r-1"))
    other = HumanReview("  ", "bob", ("c-3",))
    batched = batch_reviews([first, again, other])
    assert batched == HumanReview(
        "rename it\n\n---\n\nand test it", "alice, bob", ("r-1", "r-2", "c-3")
    )
    assert batch_reviews([first]) is first
    with pytest.raises(ValueError):
        batch_reviews([])
    t = drive([batched], state=drive(READY).state)
    assert "@alice, @bob" in t.state.history[-1].summary


def test_a_stored_round_rebuilds_its_pending_agent_call() -> None:
    t = drive([*READY, ASK])
    stored = WorkflowState.model_validate_json(t.state.model_dump_json())
    assert stored == t.state and stored.round == 1
    assert pending_agent(stored, Limits()) == agent(t)
