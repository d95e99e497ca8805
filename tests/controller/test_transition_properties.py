"""Property tests over random runs: random limits, verdicts, commits, failures, budgets,
human review rounds (reviews that arrive while the task runs are queued, as the caller does)
and the recovery ladder's calls (doctor and replanner answers, questions answered)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.controller.controller_support import NOW, of_type
from workers.controller.effects import (
    CommentKind,
    MarkReady,
    PostComment,
    PostNomerge,
    RunAgent,
    RunWave,
)
from workers.controller.ladder import waiting_for_answer
from workers.controller.ladder_state import RecoveryAction
from workers.controller.limits import Limits, PhaseLimits
from workers.controller.moves import Transition
from workers.controller.outcomes import (
    AgentFailed,
    AssessorDone,
    BudgetExceeded,
    Command,
    DoctorDone,
    HumanAnswer,
    HumanCommand,
    HumanReview,
    JudgeDone,
    Outcome,
    ReplanDone,
    ReviewerDone,
    Start,
    SubtaskResult,
    WaveJoined,
    WorkerDone,
)
from workers.controller.phases import WORK_PHASES, Phase, Role
from workers.controller.plan import plan_tasks
from workers.controller.review import accepts_review, batch_reviews
from workers.controller.state import WorkflowState
from workers.controller.testrun import TestRun
from workers.controller.transitions import step

MAX_TASKS = 3
MAX_FAILURES = 2
MAX_ROUNDS = 2
JUDGE_ANSWERS = ("ADVANCE", "ITERATE", "BLOCKED", "none", "chatter", "fail")
# ITERATE reasons: the same one again makes the ladder act; failing tests likewise.
REASONS = (
    "why",
    "the parser still drops the inline comment after a value",
    "the parser still drops an inline comment after the value",
    "the new tests do not cover a missing section header at all",
)
DOCTOR_ANSWERS = (
    "retry_with_fix add a test",
    "replan split it",
    "fatal cannot",
    "rollback_provider",
)

phase_limits = st.builds(
    PhaseLimits,
    PLAN=st.integers(1, 4),
    IMPLEMENT=st.integers(1, 4),
    DOCS=st.integers(1, 4),
)
limits_strategy = st.builds(
    Limits, SIMPLE=phase_limits, COMPLEX=phase_limits, eval_no_signal_limit=st.integers(0, 3)
)


@dataclass
class Run:
    limits: Limits
    failures: int = 0
    forced: bool = False
    agent_calls: int = 0
    rounds: int = 0
    replies: int = 0
    queued: list[HumanReview] = field(default_factory=list)
    launched: dict[tuple[int, int], tuple[str, ...]] = field(default_factory=dict)

    def bound(self) -> int:
        """Agent calls a task can take: every iteration at its limit, each judge re-asked."""
        most = [
            max(self.limits.SIMPLE.model_dump()[p], self.limits.COMPLEX.model_dump()[p])
            for p in WORK_PHASES
        ]
        # a wave: subtasks, reviewer, judge + re-ask, per attempt; then the iteration's own
        per_wave = 2 * 4
        per_iteration = MAX_TASKS * per_wave + 1 + 1 + 2  # + assessor, reviewer, judge, re-ask
        ladder = self.limits.recovery.doctor.per_task + self.limits.recovery.replans_per_task
        return (sum(most) * per_iteration + MAX_FAILURES * 2) * (1 + self.rounds) + ladder


def plan_text(data: st.DataObject, tasks: int) -> tuple[str, bool]:
    """A plan of ``tasks`` tasks, sequential or with random dependencies (sometimes on an
    unknown task: invalid); and whether it is valid."""
    style = data.draw(st.sampled_from(["sequential", "dag", "invalid"]))
    lines = []
    for n in range(1, tasks + 1):
        lines.append(f"### Task {n}: part {n}")
        if style != "sequential":
            deps = data.draw(st.lists(st.integers(1, n - 1), unique=True)) if n > 1 else []
            if style == "invalid" and n == tasks:
                deps.append(9)
            lines.append(f"Depends on: {', '.join(map(str, deps)) or 'none'}")
    valid = style != "invalid" or tasks == 0
    return "\n".join(lines) or "one step", valid


def draw_wave(data: st.DataObject, run: Run, wave: RunWave) -> tuple[Outcome, str]:
    """The join of a wave: clean, with a conflict, with a subtask that failed, or none."""
    key = (wave.wave.number, wave.wave.attempt)
    ids = tuple(call.subtask or "" for call in wave.calls)
    assert len(set(ids)) == len(ids) == len(wave.wave.subtasks)  # each subtask once
    assert run.launched.setdefault(key, ids) == ids  # a resumed attempt asks for the same
    kind = data.draw(st.sampled_from(["clean", "clean", "empty", "conflict", "fail"]))
    if kind == "fail" and run.failures >= MAX_FAILURES:
        kind = "clean"
    results = tuple(
        SubtaskResult(i, "done", error="boom" if kind == "fail" and i == ids[0] else "")
        for i in ids
    )
    commit = "" if kind in ("empty", "conflict") else f"c{key}"
    conflict = "a.py overlaps" if kind == "conflict" else ""
    joined = WaveJoined(key[0], key[1], results, "s", commit, conflict)
    return joined, "fail" if kind == "fail" else "work"


def draw_outcome(data: st.DataObject, run: Run, pending: RunAgent) -> tuple[Outcome, str]:
    """An outcome for ``pending`` and what the test knows it means ("ADVANCE", ...)."""
    can_fail = run.failures < MAX_FAILURES
    if data.draw(st.integers(0, 39)) == 0:
        return BudgetExceeded(pending.role, "tokens 1,000,001 of 1,000,000"), "budget"
    if pending.role is Role.WORKER:
        if pending.phase is Phase.PLAN:
            text, valid = plan_text(data, data.draw(st.integers(0, MAX_TASKS)))
            if data.draw(st.integers(0, 9)) == 0:
                return WorkerDone(text + "\nAGENTIUM_STATUS: NOTHING_TO_DO duplicate"), "work"
            return WorkerDone(text), "work" if valid else "invalid plan"
        return WorkerDone("did it", made_commits=data.draw(st.booleans())), "work"
    if pending.role is Role.ASSESSOR:
        answer = data.draw(st.sampled_from(["SIMPLE", "COMPLEX", "none", "fail"]))
        if answer == "fail":
            return AgentFailed(Role.ASSESSOR, "boom"), "assess"
        text = None if answer == "none" else f"AGENTIUM_EVAL: {answer}"
        return AssessorDone(text), "assess"
    if pending.role is Role.REVIEWER:
        failing = data.draw(st.sampled_from([(), ("t.py::a",), ("t.py::a", "t.py::b")]))
        return ReviewerDone(
            "review", TestRun(exit_code=1 if failing else 0, failing=failing)
        ), "review"
    if pending.role is Role.DOCTOR:
        said = data.draw(st.sampled_from([*DOCTOR_ANSWERS, "unsure", "fail"]))
        if said == "fail":
            return AgentFailed(Role.DOCTOR, "overloaded", infrastructure=True), "doctor"
        return DoctorDone(f"Diagnosis.\nAGENTIUM_DOCTOR: {said}"), "doctor"
    if pending.role is Role.REPLANNER:
        return ReplanDone(data.draw(st.sampled_from(["Do it another way.", None]))), "replan"
    answers = JUDGE_ANSWERS if can_fail else JUDGE_ANSWERS[:-1]
    answer = data.draw(st.sampled_from(answers))
    if answer == "fail":
        infrastructure = data.draw(st.booleans())
        return AgentFailed(Role.JUDGE, "overloaded", infrastructure=infrastructure), answer
    texts = {"none": None, "chatter": "I am not sure."}
    reason = data.draw(st.sampled_from(REASONS))
    return JudgeDone(texts.get(answer, f"Because.\nAGENTIUM_EVAL: {answer} {reason}")), answer


def scope_reduced(before: WorkflowState, after: WorkflowState) -> bool:
    """The ladder cut the scope in this step (an override: the round ends NOMERGE)."""
    new = after.recovery.steps[len(before.recovery.steps) :]
    return any(s.action is RecoveryAction.REDUCE_SCOPE for s in new)


def check_ladder(run: Run, before: WorkflowState, state: WorkflowState) -> None:
    """Bounded: never more replans or doctor calls than the budgets; the anchor never moves."""
    limits, recovery = run.limits.recovery, state.recovery
    assert all(n <= limits.replans_per_phase for n in recovery.replans.values())
    assert sum(recovery.replans.values()) <= limits.replans_per_task
    calls, doctor = recovery.doctor, limits.doctor
    assert calls.total <= doctor.per_task and calls.strong <= doctor.strong
    assert calls.infrastructure <= doctor.infrastructure
    assert all(n <= doctor.per_phase for n in calls.by_phase.values())
    if before.recovery.anchor is not None:
        assert state.recovery.anchor == before.recovery.anchor
    if state.recovery.anchor is None:
        assert state.phase is Phase.PLAN or state.phase.is_terminal


def forced_advance(before: WorkflowState, after: WorkflowState, meaning: str) -> bool:
    """Observed, not read from flags: the phase moved on although the judge did not ADVANCE."""
    plain = ("work", "assess", "review", "retry", "ADVANCE", "budget", "human review")
    plain += ("answer",)
    if meaning in plain or before.phase is after.phase:
        return False
    moved_on = after.phase is not Phase.BLOCKED or after.end_reason.startswith("no changes")
    return moved_on and after.paused is None


def check_invariants(run: Run, transition: Transition) -> None:
    state = transition.state
    if not state.phase.is_terminal:
        assert 1 <= state.iteration <= run.limits.max_iterations(state.path, state.phase)
    for phase, count in state.iterations.items():
        assert count <= max(
            run.limits.SIMPLE.model_dump()[phase], run.limits.COMPLEX.model_dump()[phase]
        )
    assert state.controller_overrode == run.forced
    assert bool(state.round_overrides) == state.controller_overrode
    assert all(o.round <= state.round for o in state.overrides)
    assert accepts_review(state) == (state.phase is Phase.COMPLETE)
    replies = [
        c for c in of_type(transition.effects, PostComment) if c.kind is CommentKind.REVIEW_REPLY
    ]
    if replies:
        assert state.round > 0 and state.phase.is_terminal and state.paused is None
    run.replies += len(replies)
    if of_type(transition.effects, MarkReady):
        assert not state.controller_overrode and state.phase is Phase.COMPLETE
    if of_type(transition.effects, PostNomerge):
        assert state.controller_overrode and state.phase is Phase.COMPLETE


def queue_review(data: st.DataObject, run: Run, state: WorkflowState) -> None:
    """Sometimes a review arrives while the task runs: step ignores it, the caller queues it."""
    if run.rounds + len(run.queued) >= MAX_ROUNDS or data.draw(st.integers(0, 9)):
        return
    review = HumanReview(f"review {len(run.queued)}", "alice", (f"r-{run.agent_calls}",))
    ignored = step(state, review, run.limits, now=NOW)
    assert ignored.state == state and ignored.effects == ()
    run.queued.append(review)


def next_review(data: st.DataObject, run: Run) -> HumanReview | None:
    """After COMPLETE: the queued reviews, batched, or now and then a new one."""
    if run.queued:
        review = batch_reviews(run.queued)
        run.queued.clear()
        return review
    if run.rounds < MAX_ROUNDS and data.draw(st.booleans()):
        return HumanReview("please change it", "bob", ("r-new",))
    return None


def completed(limits: Limits, assessment: str) -> Transition:
    """A task that went straight to COMPLETE (ready), to start review rounds from."""
    advance = [ReviewerDone("r"), JudgeDone("AGENTIUM_EVAL: ADVANCE")]
    outcomes: list[Outcome] = [WorkerDone("plan"), AssessorDone(f"AGENTIUM_EVAL: {assessment}")]
    outcomes += advance if assessment == "COMPLEX" else []
    outcomes += [WorkerDone("code", made_commits=True), *advance, WorkerDone("docs"), *advance]
    transition = step(WorkflowState(), Start(), limits, now=NOW)
    for outcome in outcomes:
        transition = step(transition.state, outcome, limits, now=NOW)
    assert transition.state.pr_result == "ready"
    return transition


@settings(max_examples=400, deadline=None)
@given(data=st.data(), limits=limits_strategy)
def test_random_runs_terminate_within_the_limits(data: st.DataObject, limits: Limits) -> None:
    run = Run(limits)
    start = data.draw(st.sampled_from(["start", "SIMPLE", "COMPLEX"]))
    if start == "start":
        transition = step(WorkflowState(), Start(), limits, now=NOW)
    else:  # most random runs block early: start half of them from COMPLETE, with a review
        transition = completed(limits, start)
        run.queued.append(HumanReview("first review", "carol", ("r-0",)))
    while True:
        calls = [e for e in transition.effects if isinstance(e, RunAgent | RunWave)]
        pending = calls[0] if calls else None
        review = next_review(data, run) if accepts_review(transition.state) else None
        if review is not None:
            outcome: Outcome = review
            meaning = "human review"
            run.rounds += 1
            run.forced = False
        elif pending is None:
            if transition.state.paused is None:
                break
            if waiting_for_answer(transition.state) and data.draw(st.booleans()):
                outcome, meaning = HumanAnswer("Use the other parser.", "alice"), "answer"
            else:
                outcome, meaning = HumanCommand(Command.RETRY), "retry"
        else:
            queue_review(data, run, transition.state)
            run.agent_calls += 1
            if isinstance(pending, RunWave):
                outcome, meaning = draw_wave(data, run, pending)
                run.failures += meaning == "fail"
            else:
                outcome, meaning = draw_outcome(data, run, pending)
                failed = isinstance(outcome, AgentFailed) and outcome.role is not Role.ASSESSOR
                run.failures += failed
        before = transition.state
        transition = step(before, outcome, limits, now=NOW)
        run.forced = run.forced or forced_advance(before, transition.state, meaning)
        run.forced = run.forced or scope_reduced(before, transition.state)
        check_invariants(run, transition)
        check_ladder(run, before, transition.state)
        assert run.agent_calls <= run.bound()
    final = transition.state
    assert final.phase.is_terminal
    walked = [i for wave in final.walk.waves for i in wave.ids]
    if walked:  # every plan task in exactly one wave, each wave attempted at most twice
        assert sorted(walked) == sorted(t.id for t in plan_tasks(final.plan or ""))
        event(f"walk of {len(final.walk.waves)} waves")
    assert all(attempt <= 2 for _, attempt in run.launched)
    for (number, _), ids in run.launched.items():
        assert ids == final.walk.waves[number - 1].ids
    assert final.round == run.rounds == run.replies
    assert not run.queued or final.phase is not Phase.COMPLETE  # kept for a BLOCKED task
    event(f"{final.phase} {final.pr_result} rounds={final.round}")
    for action in sorted({s.action.value for s in final.recovery.steps}):
        event(f"ladder: {action}")
    if final.phase is Phase.COMPLETE:
        assert final.pr_open and final.has_commits
        assert final.pr_result == ("nomerge" if run.forced else "ready")
    else:
        assert final.pr_result == "none"
