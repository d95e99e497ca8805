"""Table tests: one or more per rule of docs/design.md §1, through ``step``."""

from __future__ import annotations

import pytest

from tests.controller.controller_support import HINT, NOW, drive, of_type
from workers.controller.effects import (
    BLOCKED_LABEL,
    CommentKind,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    RunAgent,
    RunWave,
    Session,
    SetLabel,
    Target,
)
from workers.controller.errors import OutcomeMismatch
from workers.controller.limits import Limits
from workers.controller.memory import MemoryType
from workers.controller.moves import Transition
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    Command,
    HumanCommand,
    JudgeDone,
    Outcome,
    ReviewerDone,
    Start,
    WorkerDone,
)
from workers.controller.phases import OverrideRule, Path, Phase, Role
from workers.controller.state import WorkflowState
from workers.controller.transitions import pending_agent, step

PLAN_TEXT = (
    "The plan.\nAGENTIUM_MEMORY: KEY_FACT tests live in tests/\nAGENTIUM_MEMORY: DECISION use X"
)
REVIEW = ReviewerDone("the review")


def judge(verdict: str, feedback: str = "") -> JudgeDone:
    return JudgeDone(f"Reasoning.\nAGENTIUM_EVAL: {verdict} {feedback}".rstrip())


def work(commits: bool = True, text: str = "work") -> WorkerDone:
    return WorkerDone(text, made_commits=commits)


def plan_complex(*judgments: JudgeDone) -> list[Outcome]:
    """PLAN iteration 1 with a COMPLEX assessment, then one judge call per iteration."""
    outcomes: list[Outcome] = [WorkerDone(PLAN_TEXT), AssessorDone("AGENTIUM_EVAL: COMPLEX")]
    for index, verdict in enumerate(judgments):
        if index:
            outcomes.append(WorkerDone(PLAN_TEXT))
        outcomes += [REVIEW, verdict]
    return outcomes


TO_IMPLEMENT = plan_complex(judge("ADVANCE"))
TO_DOCS = [*TO_IMPLEMENT, work(), REVIEW, judge("ADVANCE")]
TO_SIMPLE = [WorkerDone(PLAN_TEXT), AssessorDone("AGENTIUM_EVAL: SIMPLE")]


def agent(transition: Transition) -> RunAgent:
    (run,) = of_type(transition.effects, RunAgent)
    assert transition.effects[-1] is run, "the agent call comes after every other effect"
    return run


def comments(transition: Transition, kind: CommentKind) -> list[PostComment]:
    return [c for c in of_type(transition.effects, PostComment) if c.kind is kind]


# --- start and PLAN --------------------------------------------------------------------


def test_start_runs_the_plan_worker() -> None:
    t = drive([])
    run = agent(t)
    assert (run.role, run.phase, run.iteration, run.max_iterations) == (
        Role.WORKER,
        Phase.PLAN,
        1,
        3,
    )
    assert run.routing_key == "PLAN" and run.session is Session.NEW
    assert comments(t, CommentKind.STATUS)
    with pytest.raises(OutcomeMismatch):
        step(t.state, Start(), Limits(), now=NOW)


def test_plan_iteration_1_goes_to_the_assessor() -> None:
    run = agent(drive([WorkerDone(PLAN_TEXT)]))
    assert (run.role, run.routing_key) == (Role.ASSESSOR, "PLAN_COMPLEXITY")


def test_simple_advances_at_once_without_reviewer_or_judge() -> None:
    t = drive(TO_SIMPLE)
    run = agent(t)
    assert (run.role, run.phase, run.iteration, run.max_iterations) == (
        Role.WORKER,
        Phase.IMPLEMENT,
        1,
        2,
    )
    assert t.state.path is Path.SIMPLE and not t.state.controller_overrode
    assert [c.data["plan"] for c in comments(t, CommentKind.PLAN)] == [PLAN_TEXT]
    assert comments(t, CommentKind.PLAN)[0].target is Target.ISSUE
    roles = {h.role for h in t.state.history}
    assert Role.REVIEWER not in roles and Role.JUDGE not in roles


@pytest.mark.parametrize(
    "assessment",
    [
        AssessorDone("AGENTIUM_EVAL: COMPLEX"),
        AssessorDone(None),
        AssessorDone("I would say simple."),
        AssessorDone("AGENTIUM_EVAL: ADVANCE"),
        AgentFailed(Role.ASSESSOR, "timeout"),
    ],
)
def test_complex_is_the_default(assessment: Outcome) -> None:
    t = drive([WorkerDone(PLAN_TEXT), assessment])
    assert t.state.path is Path.COMPLEX
    assert (agent(t).role, agent(t).phase) == (Role.REVIEWER, Phase.PLAN)


def test_later_plan_iterations_skip_the_assessor() -> None:
    t = drive([*plan_complex(judge("ITERATE", "more detail")), WorkerDone(PLAN_TEXT)])
    assert agent(t).role is Role.REVIEWER


def test_nothing_to_do_ends_without_pr() -> None:
    t = drive([WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO already done in #8")])
    assert t.state.phase is Phase.NOTHING_TO_DO and t.state.end_reason == "already done in #8"
    assert comments(t, CommentKind.NOTHING_TO_DO)[0].data == {"reason": "already done in #8"}
    assert t.effects[-1] == Finish(Phase.NOTHING_TO_DO)
    assert not of_type(t.effects, OpenOrUpdatePR) and not of_type(t.effects, RunAgent)


def test_nothing_to_do_counts_only_in_plan() -> None:
    t = drive([*TO_IMPLEMENT, work(text="AGENTIUM_STATUS: NOTHING_TO_DO")])
    assert t.state.phase is Phase.IMPLEMENT and agent(t).role is Role.REVIEWER


# --- verdicts ---------------------------------------------------------------------------


def test_advance_moves_on_and_resets_the_iteration() -> None:
    t = drive(plan_complex(judge("ITERATE"), judge("ADVANCE")))
    assert (t.state.phase, t.state.iteration) == (Phase.IMPLEMENT, 1)
    assert t.state.iterations == {Phase.PLAN: 2, Phase.IMPLEMENT: 1}
    assert agent(t).feedback is None


def test_iterate_reruns_the_phase_with_the_feedback() -> None:
    t = drive(plan_complex(judge("ITERATE", "split task 2")))
    run = agent(t)
    assert (run.role, run.phase, run.iteration) == (Role.WORKER, Phase.PLAN, 2)
    assert run.feedback is not None
    assert (run.feedback.review, run.feedback.judge) == ("the review", "split task 2")
    assert any(
        e.type is MemoryType.EVAL_FEEDBACK and e.text == "split task 2" for e in t.state.memory
    )


def test_reviewer_and_judge_run_on_the_last_iteration() -> None:
    outcomes = [*plan_complex(judge("ITERATE"), judge("ITERATE")), WorkerDone(PLAN_TEXT)]
    t = drive(outcomes, answer_doctor=HINT)
    assert agent(t).role is Role.REVIEWER
    t = step(t.state, REVIEW, Limits(), now=NOW)
    assert agent(t).role is Role.JUDGE and agent(t).last_iteration


def test_iterate_on_the_last_iteration_is_overridden() -> None:
    outcomes = plan_complex(judge("ITERATE"), judge("ITERATE"), judge("ITERATE", "still vague"))
    t = drive(outcomes, answer_doctor=HINT)
    assert (t.state.phase, t.state.iteration) == (Phase.IMPLEMENT, 1)
    assert t.state.controller_overrode
    (override,) = t.state.overrides
    assert (override.phase, override.iteration, override.rule) == (
        Phase.PLAN,
        3,
        OverrideRule.MAX_ITERATIONS,
    )
    feedback = comments(t, CommentKind.FEEDBACK)
    assert feedback and feedback[0].data["review"] == "the review"  # posted for the human


@pytest.mark.parametrize(
    "outcomes",
    [
        plan_complex(judge("BLOCKED", "no API access")),
        [*TO_IMPLEMENT, work(), REVIEW, judge("BLOCKED", "no API access")],
    ],
)
def test_blocked_ends_the_task(outcomes: list[Outcome]) -> None:
    t = drive(outcomes)
    assert t.state.phase is Phase.BLOCKED and "no API access" in t.state.end_reason
    blocked = comments(t, CommentKind.BLOCKED)
    assert {c.target for c in blocked} == (
        {Target.ISSUE, Target.PR} if t.state.pr_open else {Target.ISSUE}
    )
    assert SetLabel(BLOCKED_LABEL) in t.effects and t.effects[-1] == Finish(Phase.BLOCKED)
    assert not of_type(t.effects, MarkReady) and not of_type(t.effects, PostNomerge)
    assert t.state.paused is None  # a verdict is final, not resumable


def test_blocked_in_docs_completes_with_nomerge() -> None:
    t = drive([*TO_DOCS, work(), REVIEW, judge("BLOCKED", "no docs folder")])
    assert t.state.phase is Phase.COMPLETE and t.state.pr_result == "nomerge"
    assert [o.rule for o in t.state.overrides] == [OverrideRule.DOCS_BLOCKED]
    assert not of_type(t.effects, MarkReady)
    (nomerge,) = of_type(t.effects, PostNomerge)
    assert "DOCS iteration 1" in nomerge.reason


@pytest.mark.parametrize("failing", [Role.WORKER, Role.REVIEWER, Role.JUDGE])
def test_agent_failure_in_docs_completes_with_nomerge(failing: Role) -> None:
    before = {Role.WORKER: [], Role.REVIEWER: [work()], Role.JUDGE: [work(), REVIEW]}[failing]
    t = drive([*TO_DOCS, *before, AgentFailed(failing, "rate limited")])
    assert t.state.phase is Phase.COMPLETE and t.state.controller_overrode
    assert t.state.overrides[-1].rule is OverrideRule.DOCS_AGENT_FAILED
    assert "rate limited" in of_type(t.effects, PostNomerge)[0].reason


def test_complete_marks_ready_when_not_overridden() -> None:
    t = drive([*TO_DOCS, work(), REVIEW, judge("ADVANCE")])
    assert t.state.phase is Phase.COMPLETE and t.state.pr_result == "ready"
    assert of_type(t.effects, MarkReady) and not of_type(t.effects, PostNomerge)
    assert t.effects[-1] == Finish(Phase.COMPLETE)


def test_complete_after_an_override_posts_nomerge_with_every_reason() -> None:
    outcomes = plan_complex(judge("ITERATE"), judge("ITERATE"), judge("ITERATE"))
    outcomes += [work(), REVIEW, judge("ADVANCE"), work(), REVIEW, judge("BLOCKED")]
    t = drive(outcomes, answer_doctor=HINT)
    (nomerge,) = of_type(t.effects, PostNomerge)
    assert [o.rule for o in nomerge.overrides] == [
        OverrideRule.MAX_ITERATIONS,
        OverrideRule.DOCS_BLOCKED,
    ]
    assert not of_type(t.effects, MarkReady)


# --- no signal --------------------------------------------------------------------------


def test_no_signal_reasks_once_in_the_same_conversation() -> None:
    t = drive([*TO_IMPLEMENT, work(), REVIEW, JudgeDone("I like it.")])
    run = agent(t)
    assert (run.role, run.reask, run.session) == (Role.JUDGE, True, Session.CONTINUE)
    assert t.state.no_signal_count == 0


def test_no_signal_below_the_limit_iterates_with_the_review() -> None:
    t = drive([*TO_IMPLEMENT, work(), REVIEW, JudgeDone("hm"), JudgeDone(None)])
    run = agent(t)
    assert (run.role, run.iteration) == (Role.WORKER, 2)
    assert run.feedback is not None and run.feedback.review == "the review"
    assert t.state.no_signal_count == 1 and not t.state.controller_overrode


def test_a_verdict_resets_the_no_signal_count() -> None:
    t = drive(
        [
            *TO_IMPLEMENT,
            work(),
            REVIEW,
            JudgeDone(None),
            JudgeDone(None),
            work(),
            REVIEW,
            JudgeDone(None),
            judge("ITERATE"),
        ],
        answer_doctor=HINT,
    )
    assert t.state.no_signal_count == 0 and t.state.iteration == 3


def test_reaching_the_no_signal_limit_forces_advance() -> None:
    nothing = [JudgeDone(None), JudgeDone(None)]
    t = drive([*TO_IMPLEMENT, work(), REVIEW, *nothing, work(), REVIEW, *nothing])
    assert (t.state.phase, t.state.controller_overrode) == (Phase.DOCS, True)
    assert t.state.overrides[-1].rule is OverrideRule.NO_SIGNAL_LIMIT
    assert t.state.no_signal_count == 0  # consecutive counts start again in the next phase


def test_no_signal_on_the_last_iteration_is_a_max_iterations_override() -> None:
    limits = Limits(eval_no_signal_limit=5)
    t = drive(
        [
            *TO_SIMPLE,
            work(),
            REVIEW,
            judge("ITERATE"),
            work(),
            REVIEW,
            JudgeDone(None),
            JudgeDone(None),
        ],
        limits,
    )
    assert t.state.phase is Phase.DOCS
    assert t.state.overrides[-1].rule is OverrideRule.MAX_ITERATIONS


def test_strict_mode_blocks_on_the_first_no_signal_judgment() -> None:
    limits = Limits(eval_no_signal_limit=0)
    t = drive([*TO_IMPLEMENT, work(), REVIEW, JudgeDone("hm"), JudgeDone("hm")], limits)
    assert t.state.phase is Phase.BLOCKED and "strict" in t.state.end_reason
    docs = drive([*TO_DOCS, work(), REVIEW, JudgeDone(None), JudgeDone(None)], limits)
    assert docs.state.phase is Phase.COMPLETE and docs.state.pr_result == "nomerge"


# --- commits and the draft PR -----------------------------------------------------------


def test_draft_pr_opens_after_the_first_iteration_with_commits() -> None:
    t = drive([*TO_IMPLEMENT, work(commits=False)])
    assert not of_type(t.effects, OpenOrUpdatePR) and not t.state.pr_open
    t = drive([*TO_IMPLEMENT, work(commits=False), REVIEW, judge("ITERATE"), work()])
    assert of_type(t.effects, OpenOrUpdatePR) == [OpenOrUpdatePR(create=True)]
    t = drive([*TO_IMPLEMENT, work(), REVIEW, judge("ITERATE"), work()])
    assert of_type(t.effects, OpenOrUpdatePR) == [OpenOrUpdatePR(create=False)]


def test_plan_commits_are_ignored() -> None:
    t = drive([WorkerDone(PLAN_TEXT, made_commits=True)])
    assert not of_type(t.effects, OpenOrUpdatePR) and not t.state.has_commits


@pytest.mark.parametrize("verdicts", [["ADVANCE"], ["ITERATE"] * 5])
def test_implement_without_commits_is_blocked(verdicts: list[str]) -> None:
    outcomes: list[Outcome] = list(TO_IMPLEMENT)
    for verdict in verdicts:
        outcomes += [work(commits=False), REVIEW, judge(verdict)]
    t = drive(outcomes, answer_doctor=HINT)
    assert t.state.phase is Phase.BLOCKED and "no changes" in t.state.end_reason
    assert not of_type(t.effects, MarkReady)


def test_feedback_goes_to_the_issue_in_plan_and_to_the_pr_later() -> None:
    plan = drive(plan_complex(judge("ITERATE")))
    assert [c.target for c in comments(plan, CommentKind.FEEDBACK)] == [Target.ISSUE]
    impl = drive([*TO_IMPLEMENT, work(), REVIEW, judge("ITERATE", "add tests")])
    (comment,) = comments(impl, CommentKind.FEEDBACK)
    assert comment.target is Target.PR
    assert (comment.data["verdict"], comment.data["feedback"]) == ("ITERATE", "add tests")


# --- sessions and tasks -----------------------------------------------------------------


def test_simple_keeps_one_worker_conversation_across_implement_and_docs() -> None:
    i1 = drive(TO_SIMPLE)
    i2 = drive([*TO_SIMPLE, work(), REVIEW, judge("ITERATE")])
    d1 = drive([*TO_SIMPLE, work(), REVIEW, judge("ADVANCE")])
    assert [agent(t).session for t in (i1, i2, d1)] == [
        Session.NEW,
        Session.CONTINUE,
        Session.CONTINUE,
    ]


def test_complex_gets_a_fresh_worker_every_iteration() -> None:
    i2 = drive([*TO_IMPLEMENT, work(), REVIEW, judge("ITERATE")])
    d1 = drive(TO_DOCS)
    assert [agent(t).session for t in (drive(TO_IMPLEMENT), i2, d1)] == [Session.NEW] * 3


TASK_PLAN = "### Task 1: a\n### Task 2: b\n### Task 3: c\n"


def test_complex_first_implement_iteration_walks_the_tasks_in_waves() -> None:
    start = [WorkerDone(TASK_PLAN), AssessorDone(None), REVIEW, judge("ADVANCE")]
    first = drive(start)
    (wave,) = of_type(first.effects, RunWave)
    assert [(c.subtask, c.wave and c.wave.number) for c in wave.calls] == [("1", 1)]
    assert wave.wave.of == 3 and all(c.session is Session.NEW for c in wave.calls)
    assert first.state.plan == TASK_PLAN


def test_simple_path_runs_the_whole_plan_in_one_worker() -> None:
    t = drive([WorkerDone(TASK_PLAN), AssessorDone("AGENTIUM_EVAL: SIMPLE")])
    assert agent(t).wave is None
    assert (
        agent(drive([WorkerDone(TASK_PLAN), AssessorDone("AGENTIUM_EVAL: SIMPLE"), work()])).role
        is Role.REVIEWER
    )


# --- memory, plan, history ----------------------------------------------------------------


def test_advance_clears_the_phase_memory_but_keeps_key_facts() -> None:
    in_plan = drive(plan_complex(judge("ITERATE", "name the files")))
    assert {e.type for e in in_plan.state.memory} >= {
        MemoryType.KEY_FACT,
        MemoryType.DECISION,
        MemoryType.EVAL_FEEDBACK,
    }
    after = drive(plan_complex(judge("ITERATE", "name the files"), judge("ADVANCE")))
    kinds = [(e.type, e.phase) for e in after.state.memory]
    assert kinds == [(MemoryType.KEY_FACT, Phase.PLAN), (MemoryType.PHASE_RESULT, Phase.PLAN)]
    assert "name the files" not in str(agent(after))  # no PLAN directive reaches IMPLEMENT


def test_worker_memory_is_tagged_with_phase_and_iteration() -> None:
    text = "done\nAGENTIUM_MEMORY: FILE_MODIFIED app.py"
    t = drive([*TO_IMPLEMENT, work(), REVIEW, judge("ITERATE"), work(text=text)])
    (entry,) = [e for e in t.state.memory if e.type is MemoryType.FILE_MODIFIED]
    assert (entry.phase, entry.iteration) == (Phase.IMPLEMENT, 2)


def test_reviewer_and_judge_memory_is_kept_too() -> None:
    review = ReviewerDone("needs care\nAGENTIUM_MEMORY: KEY_FACT the API is v2 only")
    said = "AGENTIUM_MEMORY: DECISION keep the old flag\nAGENTIUM_EVAL: ITERATE add tests"
    t = drive([*TO_IMPLEMENT, work(), review, JudgeDone(said)])
    found = {(e.type, e.text, e.phase, e.iteration) for e in t.state.memory}
    assert (MemoryType.KEY_FACT, "the API is v2 only", Phase.IMPLEMENT, 1) in found
    assert (MemoryType.DECISION, "keep the old flag", Phase.IMPLEMENT, 1) in found


def test_the_plan_is_not_changed_after_plan() -> None:
    t = drive([*TO_DOCS, work(text="docs text")])
    assert t.state.plan == PLAN_TEXT


def test_history_records_every_step() -> None:
    t = drive([*TO_IMPLEMENT, work(), REVIEW, judge("ITERATE", "add tests")])
    last = t.state.history[-1]
    assert (last.phase, last.iteration, last.of, last.role) == (Phase.IMPLEMENT, 1, 5, Role.JUDGE)
    assert last.excerpt == "add tests" and last.at == NOW
    roles = [h.role for h in t.state.history]
    assert roles == [
        Role.WORKER,
        Role.ASSESSOR,
        Role.REVIEWER,
        Role.JUDGE,
        Role.WORKER,
        Role.REVIEWER,
        Role.JUDGE,
    ]


# --- failures, commands, stale outcomes ---------------------------------------------------


@pytest.mark.parametrize(
    ("failing", "before"),
    [(Role.WORKER, []), (Role.REVIEWER, [work()]), (Role.JUDGE, [work(), REVIEW])],
)
def test_agent_failure_pauses_and_retry_resumes(failing: Role, before: list[Outcome]) -> None:
    t = drive([*TO_IMPLEMENT, *before, AgentFailed(failing, "HTTP 529 after retries")])
    assert t.state.phase is Phase.BLOCKED and t.state.paused is not None
    assert SetLabel(BLOCKED_LABEL) in t.effects and t.effects[-1] == Finish(Phase.BLOCKED)
    assert "529" in comments(t, CommentKind.BLOCKED)[0].data["reason"]
    resumed = step(t.state, HumanCommand(Command.RETRY, "octocat"), Limits(), now=NOW)
    run = agent(resumed)
    assert (run.role, run.phase, run.iteration) == (failing, Phase.IMPLEMENT, 1)
    assert SetLabel(BLOCKED_LABEL, present=False) in resumed.effects
    assert resumed.state.paused is None and resumed.state.phase is Phase.IMPLEMENT


def test_stop_pauses_without_the_blocked_label_and_retry_resumes() -> None:
    t = drive([*TO_IMPLEMENT, work(), HumanCommand(Command.STOP, "octocat")])
    assert t.state.phase is Phase.BLOCKED and "@octocat" in t.state.end_reason
    assert comments(t, CommentKind.STOPPED) and not of_type(t.effects, SetLabel)
    with pytest.raises(OutcomeMismatch):  # the reviewer's late answer is dropped
        step(t.state, REVIEW, Limits(), now=NOW)
    resumed = step(t.state, HumanCommand(Command.RETRY), Limits(), now=NOW)
    assert agent(resumed).role is Role.REVIEWER


def test_commands_with_nothing_to_do_get_a_reply() -> None:
    running = drive(TO_IMPLEMENT)
    for command in (Command.RETRY,):
        t = step(running.state, HumanCommand(command), Limits(), now=NOW)
        assert t.state == running.state and comments(t, CommentKind.COMMAND_REPLY)
    done = drive([*TO_DOCS, work(), REVIEW, judge("ADVANCE")])
    for command in (Command.STOP, Command.RETRY):
        t = step(done.state, HumanCommand(command), Limits(), now=NOW)
        assert t.state == done.state and comments(t, CommentKind.COMMAND_REPLY)
    blocked = drive(plan_complex(judge("BLOCKED")))
    t = step(blocked.state, HumanCommand(Command.RETRY), Limits(), now=NOW)
    assert t.state == blocked.state and not of_type(t.effects, RunAgent)


def test_status_only_refreshes_the_status_comment() -> None:
    running = drive(TO_IMPLEMENT)
    t = step(running.state, HumanCommand(Command.STATUS), Limits(), now=NOW)
    assert t.state == running.state
    assert t.effects == (PostComment(Target.ISSUE, CommentKind.STATUS, {"spend": ""}),)


@pytest.mark.parametrize(
    "outcome", [REVIEW, judge("ADVANCE"), AssessorDone(None), AgentFailed(Role.JUDGE, "x")]
)
def test_an_outcome_not_waited_for_is_rejected(outcome: Outcome) -> None:
    with pytest.raises(OutcomeMismatch):
        drive([outcome])
    with pytest.raises(OutcomeMismatch):
        step(WorkflowState(), work(), Limits(), now=NOW)


def test_outcomes_after_the_end_are_rejected() -> None:
    done = drive([WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO")])
    with pytest.raises(OutcomeMismatch):
        step(done.state, work(), Limits(), now=NOW)


def test_judge_directives_belong_to_the_current_phase() -> None:
    plan = plan_complex(judge("ITERATE", "name the files"), judge("ADVANCE", "good"))
    t = drive([*plan, work(), REVIEW, judge("ITERATE", "add tests"), work(), REVIEW])
    assert t.state.judge_directives() == ["add tests"]
    assert drive(plan).state.judge_directives() == []


def test_the_pending_agent_call_can_be_rebuilt_from_the_stored_state() -> None:
    for outcomes in ([], TO_SIMPLE, [*TO_IMPLEMENT, work(), REVIEW, JudgeDone("hm")], TO_DOCS):
        t = drive(outcomes)
        stored = type(t.state).model_validate_json(t.state.model_dump_json())
        assert pending_agent(stored, Limits()) == agent(t)
    assert (
        pending_agent(drive([WorkerDone("AGENTIUM_STATUS: NOTHING_TO_DO")]).state, Limits()) is None
    )
