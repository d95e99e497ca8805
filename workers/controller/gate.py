"""The quality gate (docs/design.md §12): IMPLEMENT does not advance while the change
breaks tests that passed on the base commit.

The baseline is the test command's run on the base commit, taken once per task after the
environment step; it comes with :class:`~workers.controller.outcomes.Start`. Each IMPLEMENT
iteration's run comes with the reviewer's outcome. A judge ADVANCE in IMPLEMENT while the
run is *broken* becomes ITERATE, with the broken tests as the feedback; on the last
iteration it is a forced ADVANCE (rule ``quality_gate``: NOMERGE). Nothing else is gated:
not DOCS, not an ITERATE or BLOCKED, not the other overrides.

| the baseline                                         | the gate |
|------------------------------------------------------|----------|
| not taken, or no test command (``command`` empty)    | off      |
| did not finish (killed at the timeout, or no start)  | off      |
| failed without naming a failing test                 | off      |
| passed, or failed naming its failing tests           | on       |

With the gate on, an iteration's run is broken when it finished and failed, and either
names a failing test the baseline did not name (the baseline names failing tests only, so
a test it did not name counts as having passed there: a test the change added that fails
counts too) or names no failing test at all (the base commit's run said what failed; this
one cannot, so nothing says the baseline's passing tests still pass). A run that did not
finish breaks nothing: the reviewer and the judge see it.
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.controller.effects import PostComment
from workers.controller.moves import Context, record
from workers.controller.phases import OverrideRule, Phase, Role
from workers.controller.rules import Action, Ruling
from workers.controller.state import Feedback, WorkflowState
from workers.controller.testrun import TestRun, compare

SHOWN = 3  # failing tests named in a history line (the worker's feedback has them all)
ID_CHARS = 80


def off_reason(baseline: TestRun | None) -> str | None:
    """Why the gate is off with this baseline; None when it is on."""
    if baseline is None:
        return "no baseline was taken"
    if not baseline.command:
        return "no test command"
    if baseline.exit_code is None:
        return "the test command did not finish on the base commit (timeout, or no start)"
    if not baseline.ok and not baseline.failing:
        return (
            f"the test command failed on the base commit (exit code {baseline.exit_code}) "
            "without naming a failing test"
        )
    return None


def status_line(baseline: TestRun | None) -> str:
    """The status comment's row: whether the gate is on, and against what."""
    reason = off_reason(baseline)
    if reason is not None:
        return f"off: {reason}"
    assert baseline is not None
    return f"on: `{baseline.command}` on the base commit: {baseline.summary()}"


def _clean(test: str) -> str:
    flat = " ".join(test.replace("`", "'").split())
    return flat if len(flat) <= ID_CHARS else flat[: ID_CHARS - 1] + "…"


def named(tests: tuple[str, ...]) -> str:
    shown = ", ".join(f"`{_clean(test)}`" for test in tests[:SHOWN])
    return shown + (f" and {len(tests) - SHOWN} more" if len(tests) > SHOWN else "")


@dataclass(frozen=True)
class Broken:
    """What the change broke: the newly failing tests, or none named (``exit_code`` then)."""

    failing: tuple[str, ...]
    exit_code: int | None = None

    def describe(self, *, with_names: bool = True) -> str:
        if not self.failing:
            return (
                f"the test command fails now (exit code {self.exit_code}) without naming a "
                "failing test, where on the base commit it passed or named what failed"
            )
        count = len(self.failing)
        what = "test that passed" if count == 1 else "tests that passed"
        said = f"{count} {what} on the base commit {'fails' if count == 1 else 'fail'} now"
        return f"{said}: {named(self.failing)}" if with_names else said


def broken(baseline: TestRun | None, current: TestRun | None) -> Broken | None:
    """What ``current`` broke against ``baseline``; None: nothing, or the gate is off."""
    if off_reason(baseline) is not None or current is None:
        return None
    assert baseline is not None
    if current.exit_code is None or current.ok:
        return None
    newly = compare(baseline, current).newly_failing
    if newly:
        return Broken(newly)
    return None if current.failing else Broken((), current.exit_code)


@dataclass(frozen=True)
class Held:
    """The ruling after the gate; ``note`` says what the gate found ("" : it let it be)."""

    state: WorkflowState
    ruling: Ruling
    feedback: Feedback
    note: str = ""


def hold(state: WorkflowState, ctx: Context, ruling: Ruling, feedback: Feedback) -> Held:
    """Apply the gate to the judge's ``ruling`` on the current iteration."""
    gated = state.phase is Phase.IMPLEMENT and ruling.action is Action.ADVANCE
    found = broken(state.baseline, state.tests) if gated else None
    if found is None:
        return Held(state, ruling, feedback)
    note = found.describe()
    noted = record(state, ctx, Role.CONTROLLER, f"Quality gate: {note}")
    if state.iteration >= ctx.limits.max_iterations(state.path, state.phase):
        why = f"the judge said ADVANCE on the last iteration, but {note}"
        ruling = Ruling(Action.FORCE_ADVANCE, OverrideRule.QUALITY_GATE, why)
    else:
        ruling = Ruling(Action.ITERATE, reason=note)
    told = Feedback(
        review=feedback.review,
        judge=(
            f"Quality gate: {found.describe(with_names=False)}, so the judge's ADVANCE was "
            "not accepted. Make the tests pass again; change a test only where the issue "
            "changes what it checks, and say so in your report."
        ),
        broken=found.failing,
    )
    return Held(noted, ruling, told, note)


def annotate(comment: PostComment, held: Held) -> PostComment:
    """The iteration's feedback comment, saying what the gate found."""
    if not held.note:
        return comment
    return PostComment(comment.target, comment.kind, {**comment.data, "gate": held.note})
