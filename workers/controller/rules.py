"""What a judgment leads to: the decision table of docs/design.md §1.

A no-signal judgment (none even after the re-ask) is first turned into a verdict:

| eval_no_signal_limit | consecutive no-signal judgments | counts as                 |
|----------------------|---------------------------------|---------------------------|
| 0 (strict)           | any                             | BLOCKED                   |
| n > 0                | below n                         | ITERATE (reviewer's text) |
| n > 0                | n                               | forced ADVANCE (NOMERGE)  |

Then the verdict decides:

| verdict | last iteration? | PLAN / IMPLEMENT                | DOCS (non-blocking)          |
|---------|-----------------|---------------------------------|------------------------------|
| ADVANCE | any             | advance                         | advance (COMPLETE)           |
| ITERATE | no              | iterate                         | iterate                      |
| ITERATE | yes             | forced ADVANCE (max_iterations) | forced ADVANCE               |
| BLOCKED | any             | block                           | forced ADVANCE (docs rule)   |
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from workers.controller.phases import OverrideRule, Phase, Verdict


class Action(StrEnum):
    ADVANCE = "advance"
    ITERATE = "iterate"
    BLOCK = "block"
    FORCE_ADVANCE = "force_advance"


@dataclass(frozen=True)
class Ruling:
    action: Action
    rule: OverrideRule | None = None
    reason: str = ""


def no_signal_verdict(count: int, limit: int) -> Verdict | Ruling:
    """What the ``count``-th consecutive no-signal judgment counts as."""
    if limit == 0:
        return Verdict.BLOCKED
    if count >= limit:
        reason = f"{count} consecutive judgments without a verdict (limit {limit})"
        return Ruling(Action.FORCE_ADVANCE, OverrideRule.NO_SIGNAL_LIMIT, reason)
    return Verdict.ITERATE


def decide(verdict: Verdict, *, phase: Phase, last_iteration: bool) -> Ruling:
    """The action for a judge verdict (ADVANCE, ITERATE or BLOCKED)."""
    if verdict is Verdict.ADVANCE:
        return Ruling(Action.ADVANCE)
    if verdict is Verdict.ITERATE and last_iteration:
        reason = "the judge said ITERATE on the last iteration"
        return Ruling(Action.FORCE_ADVANCE, OverrideRule.MAX_ITERATIONS, reason)
    if verdict is Verdict.ITERATE:
        return Ruling(Action.ITERATE)
    if phase is Phase.DOCS:
        reason = "BLOCKED in DOCS, which is non-blocking"
        return Ruling(Action.FORCE_ADVANCE, OverrideRule.DOCS_BLOCKED, reason)
    return Ruling(Action.BLOCK, reason="the judge said BLOCKED")


def judge(
    verdict: Verdict | None,
    *,
    phase: Phase,
    last_iteration: bool,
    no_signal_count: int,
    no_signal_limit: int,
) -> Ruling:
    """Combine both tables; ``no_signal_count`` already includes this judgment."""
    if verdict is not None:
        return decide(verdict, phase=phase, last_iteration=last_iteration)
    counted = no_signal_verdict(no_signal_count, no_signal_limit)
    if isinstance(counted, Ruling):
        return counted
    decision = decide(counted, phase=phase, last_iteration=last_iteration)
    if decision.action is Action.BLOCK:
        return Ruling(Action.BLOCK, reason="the judge gave no verdict (strict mode)")
    return decision
