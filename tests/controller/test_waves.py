"""The wave walk and the plan check (docs/design.md §8), through ``step``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.controller.controller_support import NOW, drive, joined, of_type
from tests.controller.test_plan_check import SEED_PLAN, dags, render
from workers.controller.effects import (
    CommentKind,
    OpenOrUpdatePR,
    PostComment,
    RunAgent,
    RunWave,
    Session,
)
from workers.controller.errors import OutcomeMismatch
from workers.controller.limits import Limits, PhaseLimits, PlanRules
from workers.controller.memory import MemoryType
from workers.controller.moves import Transition
from workers.controller.outcomes import (
    AssessorDone,
    BudgetExceeded,
    Command,
    HumanCommand,
    JudgeDone,
    Outcome,
    ReviewerDone,
    Start,
    SubtaskResult,
    WaveJoined,
    WorkerDone,
)
from workers.controller.phases import OverrideRule, Phase, Role, Verdict
from workers.controller.plan_check import TddMode, check_plan, dependencies
from workers.controller.state import WorkflowState
from workers.controller.transitions import pending_agent, step
from workers.controller.wavestate import RunStatus, WaveEvent

REVIEW = ReviewerDone("1. looks fine")


def judge(verdict: str, feedback: str = "") -> JudgeDone:
    return JudgeDone(f"Reasoning.\nAGENTIUM_EVAL: {verdict} {feedback}".rstrip())


def to_implement(plan: str) -> list[Outcome]:
    return [WorkerDone(plan), AssessorDone(None), REVIEW, judge("ADVANCE")]


def wave_of(transition: Transition) -> RunWave:
    (wave,) = of_type(transition.effects, RunWave)
    assert transition.effects[-1] is wave
    return wave


def agent(transition: Transition) -> RunAgent:
    (run,) = of_type(transition.effects, RunAgent)
    return run


SEED_WAVES = [("1a", "1b"), ("2a", "2b"), ("3a", "3b"), ("4a", "4b"), ("5",)]


def seed_wave(number: int, *after: Outcome) -> list[Outcome]:
    return [joined(number, *SEED_WAVES[number - 1]), REVIEW, *after]


def test_the_seed_plan_runs_in_five_reviewed_waves_then_the_whole_change() -> None:
    t = drive(to_implement(SEED_PLAN))
    first = wave_of(t)
    assert [c.subtask for c in first.calls] == ["1a", "1b"]
    assert all(c.role is Role.WORKER and c.session is Session.NEW for c in first.calls)
    assert (first.wave.number, first.wave.of, first.wave.attempt) == (1, 5, 1)
    outcomes = to_implement(SEED_PLAN)
    for number in range(1, 6):
        after_join = drive([*outcomes, joined(number, *SEED_WAVES[number - 1])])
        (push,) = of_type(after_join.effects, OpenOrUpdatePR)
        assert push.create is (number == 1)  # the draft PR opens with wave 1's commit
        reviewer = agent(after_join)
        assert reviewer.role is Role.REVIEWER and reviewer.wave is not None
        assert reviewer.wave.start_commit == f"s{number}" and reviewer.wave.number == number
        judged = drive([*outcomes, joined(number, *SEED_WAVES[number - 1]), REVIEW])
        assert agent(judged).role is Role.JUDGE and agent(judged).wave is not None
        outcomes += seed_wave(number, judge("ADVANCE"))
    end = drive(outcomes)
    whole = agent(end)
    assert (whole.role, whole.wave, whole.phase, whole.iteration) == (
        Role.REVIEWER, None, Phase.IMPLEMENT, 1,
    )  # fmt: skip
    walk = end.state.walk
    assert walk.finished and not walk.stopped
    assert [w.status for w in walk.waves] == [RunStatus.COMPLETED] * 5
    assert [w.commit for w in walk.waves] == [f"c{n}-1" for n in range(1, 6)]
    assert walk.waves[1].commit_title() == "Wave 2: Implement User model, Implement Post model"
    assert end.state.has_commits and end.state.pr_open
    later = drive([REVIEW, judge("ITERATE", "fix")], state=end.state)
    assert agent(later).wave is None and agent(later).iteration == 2  # one worker, whole change


def test_an_iterate_retries_the_wave_once_with_the_review_kept() -> None:
    start = [*to_implement(SEED_PLAN), *seed_wave(1, judge("ADVANCE"))]
    review = ReviewerDone("1. the User tests do not fail first\n2. name the fixtures")
    retry = drive([*start, joined(2, "2a", "2b"), review, judge("ITERATE", "make 2a pass")])
    wave = wave_of(retry)
    assert (wave.wave.number, wave.wave.attempt, wave.wave.max_attempts) == (2, 2, 2)
    assert wave.wave.start_commit == "s2"
    (call, _) = wave.calls
    assert call.feedback is not None and call.session is Session.NEW
    assert call.feedback.review == review.text and call.feedback.judge == "make 2a pass"
    assert retry.state.walk.wave.status is RunStatus.RETRYING
    events = [h.event for h in retry.state.history if h.event]
    assert WaveEvent.WAVE_RETRY in events
    passed = drive([joined(2, "2a", "2b", attempt=2), REVIEW, judge("ADVANCE")], state=retry.state)
    assert wave_of(passed).wave.number == 3
    assert passed.state.walk.waves[1].commit == "c2-2"
    with pytest.raises(OutcomeMismatch):  # a late join of the first attempt
        step(retry.state, joined(2, "2a", "2b"), Limits(), now=NOW)


def test_a_second_failure_stops_the_walk_and_the_whole_change_is_reviewed() -> None:
    start = [*to_implement(SEED_PLAN), *seed_wave(1, judge("ADVANCE"))]
    fail = [joined(2, "2a", "2b"), REVIEW, judge("ITERATE", "no")]
    again = [joined(2, "2a", "2b", attempt=2), REVIEW, judge("ITERATE", "still no")]
    end = drive([*start, *fail, *again])
    assert agent(end).role is Role.REVIEWER and agent(end).wave is None
    walk = end.state.walk
    assert walk.finished and "wave 2 failed 2 attempt(s)" in walk.stopped
    assert walk.waves[1].status is RunStatus.FAILED
    assert [w.status for w in walk.waves[2:]] == [RunStatus.PENDING] * 3
    pending = [m.text for m in end.state.memory if m.type is MemoryType.STEP_PENDING]
    assert len(pending) == 1 and "3a" in pending[0] and "5 Write integration tests" in pending[0]
    done = drive([REVIEW, judge("ADVANCE")], state=end.state)
    assert done.state.phase is Phase.DOCS and not done.state.controller_overrode


def test_a_blocked_wave_stops_the_walk_without_a_retry() -> None:
    end = drive([*to_implement(SEED_PLAN), *seed_wave(1, judge("BLOCKED", "wrong design"))])
    assert agent(end).role is Role.REVIEWER and agent(end).wave is None
    assert "BLOCKED: wrong design" in end.state.walk.stopped
    assert end.state.walk.waves[0].attempt == 1


def test_a_conflict_at_the_join_is_a_failed_attempt_with_the_conflict_as_feedback() -> None:
    conflict = "error: patch failed: src/user.py:3"
    retry = drive([*to_implement(SEED_PLAN), joined(1, "1a", "1b", conflict=conflict)])
    wave = wave_of(retry)
    assert wave.wave.attempt == 2
    feedback = wave.calls[0].feedback
    assert feedback is not None and feedback.review == conflict and "overlap" in feedback.judge
    assert not of_type(retry.effects, OpenOrUpdatePR)


def test_a_subtask_that_could_not_be_run_pauses_and_retry_resumes_the_same_attempt() -> None:
    start = to_implement(SEED_PLAN)
    broken = WaveJoined(1, 1, (SubtaskResult("1a", "ok"), SubtaskResult("1b", error="overloaded")))
    paused = drive([*start, broken])
    assert paused.state.phase is Phase.BLOCKED and paused.state.paused is not None
    assert paused.state.walk.wave.subtask("1b").status is RunStatus.FAILED
    resumed = drive([HumanCommand(Command.RETRY, "octocat")], state=paused.state)
    again = wave_of(resumed)
    assert (again.wave.number, again.wave.attempt) == (1, 1)
    assert pending_agent(resumed.state, Limits()) == again


def test_stop_budget_and_stray_outcomes_while_a_wave_runs() -> None:
    running = drive(to_implement(SEED_PLAN))
    stopped = drive([HumanCommand(Command.STOP, "octocat")], state=running.state)
    assert stopped.state.paused is not None and stopped.state.paused.awaiting.wave == 1
    over = drive([BudgetExceeded(Role.WORKER, "tokens")], state=running.state)
    assert over.state.phase is Phase.BLOCKED and over.state.paused is None
    with pytest.raises(OutcomeMismatch):
        step(running.state, WorkerDone("x", made_commits=True), Limits(), now=NOW)
    with pytest.raises(OutcomeMismatch):
        step(running.state, joined(1, "1a"), Limits(), now=NOW)  # a subtask is missing
    with pytest.raises(OutcomeMismatch):
        before = drive(to_implement("one task"))
        step(before.state, joined(1, "1"), Limits(), now=NOW)  # no wave runs


def test_a_wave_judge_without_a_verdict_is_reasked_then_counts_as_iterate() -> None:
    start = [*to_implement(SEED_PLAN), joined(1, "1a", "1b"), REVIEW, JudgeDone("hmm")]
    reask = drive(start)
    assert agent(reask).reask and agent(reask).session is Session.CONTINUE
    assert agent(reask).wave is not None
    retried = drive([*start, JudgeDone(None)])
    assert wave_of(retried).wave.attempt == 2 and retried.state.no_signal_count == 0
    strict = Limits(eval_no_signal_limit=0)
    stopped = drive([*start, JudgeDone(None)], limits=strict)
    assert agent(stopped).wave is None and stopped.state.walk.stopped


def test_max_attempts_is_configurable() -> None:
    rules = PlanRules(wave_attempts=1)
    t = step(WorkflowState(), Start(), Limits(), now=NOW, rules=rules)
    for outcome in [*to_implement(SEED_PLAN), joined(1, "1a", "1b"), REVIEW, judge("ITERATE")]:
        t = step(t.state, outcome, Limits(), now=NOW, rules=rules)
    assert agent(t).wave is None and "failed 1 attempt(s)" in t.state.walk.stopped


def test_walks_only_on_complex_first_implement_iteration_with_two_tasks() -> None:
    one = drive(to_implement("### Task 1: all of it\nDo it."))
    assert agent(one).role is Role.WORKER and agent(one).wave is None
    simple = drive([WorkerDone(SEED_PLAN), AssessorDone("AGENTIUM_EVAL: SIMPLE")])
    assert agent(simple).wave is None and not of_type(simple.effects, RunWave)


# --- the plan check ------------------------------------------------------------------------

CYCLE = "### Task 1: a\nDepends on: 2\n\n### Task 2: b\nDepends on: 1\n"


def test_structural_errors_iterate_without_a_judge() -> None:
    t = drive([WorkerDone(CYCLE)])
    run = agent(t)
    assert (run.role, run.phase, run.iteration) == (Role.WORKER, Phase.PLAN, 2)
    assert run.feedback is not None and "dependency cycle: 1 -> 2 -> 1" in run.feedback.review
    (comment,) = [c for c in of_type(t.effects, PostComment) if c.kind is CommentKind.FEEDBACK]
    assert comment.data["decision"] == "iterate" and "cycle" in comment.data["review"]
    assert t.state.plan_errors and t.state.path is None
    fixed = drive([WorkerDone(SEED_PLAN)], state=t.state)
    assert agent(fixed).role is Role.ASSESSOR  # still no path: the assessor reads the fixed plan
    assert fixed.state.plan_errors == ()


def test_a_plan_still_invalid_at_the_end_of_plan_runs_sequentially_with_nomerge() -> None:
    limits = Limits(COMPLEX=PhaseLimits(PLAN=2, IMPLEMENT=5, DOCS=3))
    t = drive([WorkerDone(CYCLE), WorkerDone(CYCLE)], limits=limits)
    assert t.state.phase is Phase.IMPLEMENT and t.state.controller_overrode
    (override,) = t.state.overrides
    assert (override.phase, override.iteration, override.rule) == (
        Phase.PLAN, 2, OverrideRule.MAX_ITERATIONS,
    )  # fmt: skip
    assert [w.ids for w in t.state.walk.waves] == [("1",), ("2",)]
    assert wave_of(t).wave.of == 2


def test_tdd_findings_reach_the_reviewer_or_are_errors_when_required() -> None:
    plan = "### Task 1: code\nType: impl\n\n### Task 2: tests\nType: test\n"
    advisory = drive([WorkerDone(plan)])
    assert agent(advisory).role is Role.ASSESSOR
    assert advisory.state.plan_findings and not advisory.state.plan_errors
    required = PlanRules(tdd=TddMode.REQUIRED)
    t = step(WorkflowState(), Start(), Limits(), now=NOW, rules=required)
    t = step(t.state, WorkerDone(plan), Limits(), now=NOW, rules=required)
    assert agent(t).iteration == 2 and "TDD" in t.state.plan_errors[0]


def test_state_from_before_waves_still_loads() -> None:
    old = '{"schema_version": 1, "phase": "IMPLEMENT", "iteration": 1, "total_tasks": 3,'
    old += ' "task_index": 1, "awaiting": {"role": "WORKER"}}'
    state = WorkflowState.model_validate_json(old)
    assert state.walk.waves == () and state.awaiting is not None and state.awaiting.wave == 0


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(dags(), st.data())
def test_a_walk_runs_every_subtask_once_per_attempt_after_its_dependencies(
    dag: tuple[list[str], dict[str, tuple[str, ...]]], data: st.DataObject
) -> None:
    order, graph = dag
    plan = render(order, graph)
    t = drive(to_implement(plan))
    if len(order) < 2:  # one task: one worker, as without a plan
        assert agent(t).role is Role.WORKER and agent(t).wave is None
        return
    graph_ = dependencies(check_plan(plan).tasks)
    done: set[str] = set()
    attempts: dict[int, int] = {}
    for _ in range(200):
        waves = of_type(t.effects, RunWave)
        if not waves:
            break
        wave = waves[0].wave
        ids = [c.subtask for c in waves[0].calls]
        assert len(set(ids)) == len(ids) and tuple(ids) == wave.subtasks
        assert wave.attempt == attempts.get(wave.number, 0) + 1
        attempts[wave.number] = wave.attempt
        for i in ids:  # every dependency ran in a completed earlier wave
            assert set(graph_[i or ""]) <= done
        verdict = data.draw(st.sampled_from(["ADVANCE", "ADVANCE", "ITERATE", "BLOCKED"]))
        t = drive([joined(wave.number, *wave.subtasks, attempt=wave.attempt), REVIEW,
                   judge(verdict)], state=t.state)  # fmt: skip
        if verdict == "ADVANCE":
            done |= set(wave.subtasks)
    assert agent(t).role is Role.REVIEWER and t.state.walk.finished
    assert all(n <= 2 for n in attempts.values())
    completed = {i for w in t.state.walk.waves if w.status is RunStatus.COMPLETED for i in w.ids}
    assert completed == done
    assert (not t.state.walk.stopped) == (done == set(order))
    assert all(w.verdict in (None, *Verdict) for w in t.state.walk.waves)


def test_the_subtasks_memory_lines_are_remembered_at_the_join() -> None:
    report = "did 1a\nAGENTIUM_MEMORY: KEY_FACT the fixtures live in tests/conftest.py"
    results = (SubtaskResult("1a", report), SubtaskResult("1b", "did 1b"))
    t = drive([*to_implement(SEED_PLAN), WaveJoined(1, 1, results, "s1", "c1")])
    facts = [m.text for m in t.state.memory if m.type is MemoryType.KEY_FACT]
    assert "the fixtures live in tests/conftest.py" in facts
