"""What the reviewing prompts say of the call and of the issue (the issue text as
untrusted data)."""

from __future__ import annotations

from workers.agents.task import TaskContext
from workers.agents.untrusted import issue_text, strip_hidden
from workers.controller.effects import RunAgent


def issue_fields(effect: RunAgent, task: TaskContext) -> dict[str, object]:
    """What every reviewing prompt (reviewer, judge, doctor, replanner) says of the call
    and of the issue."""
    return {
        "phase": effect.phase.value,
        "iteration": effect.iteration,
        "max_iterations": effect.max_iterations,
        "issue_number": task.issue_number,
        "issue_title": strip_hidden(task.issue_title).strip(),
        "issue": issue_text(task.issue_title, task.issue_body),
    }
