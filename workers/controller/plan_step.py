"""The plan check on every PLAN worker answer (docs/design.md §8).

| plan check          | last PLAN iteration? | rule                                            |
|---------------------|----------------------|-------------------------------------------------|
| structural errors   | no                   | ITERATE by the controller, the errors as the    |
|                     |                      | feedback; no reviewer, no judge                 |
| structural errors   | yes                  | forced ADVANCE (NOMERGE); the tasks then run    |
|                     |                      | one by one in plan order                        |
| valid               | any                  | the assessor (while no path is set) or the plan |
|                     |                      | reviewer; TDD findings go to reviewer and judge |
"""

from __future__ import annotations

from workers.controller.calls import after_work
from workers.controller.core import Context, Transition, note_feedback, record
from workers.controller.effects import CommentKind, PostComment, Target
from workers.controller.moves import enter_iteration, force_advance
from workers.controller.phases import OverrideRule, Phase, Role, Verdict
from workers.controller.plan_check import PlanCheck, check_plan, wave_layout
from workers.controller.state import Feedback, WorkflowState

DIRECTIVE = (
    "fix the plan's task headers (`### Task <id>: <title>`), ids and `Type:` / "
    "`Depends on:` / `Files:` lines as listed; the controller found these without a judge"
)


def on_plan(state: WorkflowState, ctx: Context) -> Transition:
    """Check the plan just written; ``state.plan`` holds it."""
    check = check_plan(state.plan or "", ctx.rules.tdd)
    checked = state.model_copy(
        update={"plan_errors": check.errors, "plan_findings": check.findings}
    )
    if check.errors:
        return _invalid(checked, ctx, check)
    if len(check.tasks) > 1 or check.findings:
        waves = len(wave_layout(check))
        said = f"Plan check: {len(check.tasks)} tasks in {waves} wave(s)"
        if check.findings:
            said += f"; {len(check.findings)} TDD finding(s) for the reviewer and judge"
        checked = record(checked, ctx, Role.CONTROLLER, said, detail="\n".join(check.findings))
    return after_work(checked, ctx)


def numbered(lines: tuple[str, ...]) -> str:
    return "\n".join(f"{n}. {line}" for n, line in enumerate(lines, 1))


def _invalid(state: WorkflowState, ctx: Context, check: PlanCheck) -> Transition:
    errors = numbered(check.errors)
    review = f"The plan check found {len(check.errors)} problem(s) in the plan's tasks:\n\n{errors}"
    last = state.iteration >= ctx.limits.max_iterations(state.path, state.phase)
    how = "forced ADVANCE" if last else "ITERATE"
    said = f"Plan check: {len(check.errors)} error(s) -> {how} (no judge): {check.errors[0]}"
    noted = record(state, ctx, Role.CONTROLLER, said, verdict=Verdict.ITERATE, detail=errors)
    comment = PostComment(
        Target.PR if noted.pr_open else Target.ISSUE,
        CommentKind.FEEDBACK,
        {
            "phase": Phase.PLAN.value,
            "iteration": str(state.iteration),
            "round": str(state.round),
            "review": review,
            "verdict": "nothing: the controller's plan check failed",
            "feedback": DIRECTIVE,
            "decision": "force_advance" if last else "iterate",
        },
    )
    if last:
        reason = (
            "the plan check still fails on the last PLAN iteration; the tasks run one by "
            f"one in plan order ({'; '.join(check.errors)})"
        )
        moved = force_advance(noted, ctx, OverrideRule.MAX_ITERATIONS, reason)
    else:
        feedback = Feedback(review=review, judge=DIRECTIVE)
        remembered = note_feedback(noted, feedback)
        moved = enter_iteration(remembered, ctx, Phase.PLAN, state.iteration + 1, feedback)
    return Transition(moved.state, (comment, *moved.effects))
