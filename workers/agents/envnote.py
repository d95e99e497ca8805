"""What the agents are told about the task's environment (``config/prompts/environment.md``):
the workers in full (with the end of a failed setup's log), the reviewer and the judge in
a line or two."""

from __future__ import annotations

from workers.agents.environment import Environment
from workers.agents.prompts import Prompts
from workers.agents.untrusted import quoted


def environment_note(prompts: Prompts, environment: Environment | None, *, detail: bool) -> str:
    """The note, or empty when the task has no environment step (local tests, old tasks)."""
    if environment is None:
        return ""
    outcome = environment.outcome
    return prompts.render(
        "environment",
        ok=outcome.ok,
        command=outcome.command,
        source=outcome.source,
        line=outcome.line(),
        detail=detail,
        tail=quoted("the setup's log", outcome.tail or "(no output)"),
    )
