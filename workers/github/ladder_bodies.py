"""The recovery ladder on GitHub (docs/design.md §9): the question asked when the task is
stuck, the status comment's row, and what a NOMERGE says was cut."""

from __future__ import annotations

from collections.abc import Mapping

from workers.controller.phases import OverrideRule
from workers.controller.state import Override, WorkflowState


def question_lines(data: Mapping[str, str]) -> list[str]:
    resume = data.get("resume", "/agentium retry")
    return [
        "### ❓ agentium is stuck and has a question",
        "",
        data.get("question", ""),
        "",
        "**Reply with a comment on this issue**: the answer goes to the next worker and the "
        f"task resumes. Or comment `{resume}` to resume without an answer.",
    ]


def recovery_row(state: WorkflowState) -> str:
    """``replan x1 · doctor x2 · ...; 2 of 10 doctor calls (...); 1 of 5 replans``."""
    recovery = state.recovery
    if not recovery.steps:
        return ""
    counted = " · ".join(f"{action} x{n}" for action, n in recovery.counts().items())
    parts = [counted]
    if recovery.budgets:
        parts.append(recovery.budgets)
    if recovery.fallback:
        parts.append("on the fallback route: " + ", ".join(r.lower() for r in recovery.fallback))
    if recovery.escalated is not None:
        parts.append(f"worker escalated in {recovery.escalated}")
    return "; ".join(parts)


def override_lines(override: Override) -> list[str]:
    """One NOMERGE item; a reduced scope lists what was cut, one line each."""
    head = f"- **{override.phase}** iteration {override.iteration}, rule `{override.rule}`"
    if override.rule is not OverrideRule.SCOPE_REDUCED:
        return [head + (f": {override.detail}" if override.detail else "")]
    cuts = [line.strip() for line in override.detail.splitlines() if line.strip()]
    lines = [head + ": the scope was reduced near the end of the budget. Left out:"]
    return lines + [f"  - {cut}" for cut in cuts]
