"""Prompts of the recovery ladder (docs/design.md §9): the doctor's and the replanner's
conversations, the goal anchor as a hard constraint, and what a worker is told after a
ladder step (a revised approach, a doctor's hint, a person's answer, a reduced scope).

The failure history is the judge's words and the repository's test ids: it is shown as
data, like everything that came from GitHub or the repository (a person's answer too).
"""

from __future__ import annotations

from workers.agents.context import Conversation
from workers.agents.issuefields import issue_fields
from workers.agents.llm import Message
from workers.agents.prompts import Prompts
from workers.agents.settings import ContextSettings
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.agents.untrusted import quoted, strip_hidden
from workers.controller.effects import RunAgent
from workers.controller.failures import Failure
from workers.controller.guidance import Guidance

FAILURE_CHARS = 1500  # of one failure's text in the doctor's and the replanner's prompt
TESTS_SHOWN = 20


def failure_lines(failures: tuple[Failure, ...]) -> str:
    lines = []
    for number, failure in enumerate(failures, 1):
        text = " ".join(failure.text.split())[:FAILURE_CHARS]
        lines.append(f"{number}. {failure.phase} iteration {failure.iteration} ({failure.kind}):")
        lines.append(f"   {text}" if text else "   (no message)")
        if failure.tests:
            shown = ", ".join(failure.tests[:TESTS_SHOWN])
            more = len(failure.tests) - TESTS_SHOWN
            lines.append(f"   failing tests: {shown}" + (f" and {more} more" if more > 0 else ""))
    return "\n".join(lines) or "(none recorded)"


def render_anchor(prompts: Prompts, guidance: Guidance | None) -> str:
    """The anchor as a hard constraint ("" before PLAN has advanced)."""
    anchor = guidance.anchor if guidance else None
    if anchor is None:
        return ""
    return prompts.render(
        "anchor",
        title=strip_hidden(anchor.title).strip() or "(untitled)",
        digest=anchor.digest,
        goal=quoted("the plan's goal", anchor.goal or "(the plan states none)"),
    )


class LadderPrompts:
    def __init__(self, prompts: Prompts, settings: ContextSettings) -> None:
        self.prompts = prompts
        self.settings = settings

    def anchor(self, guidance: Guidance | None) -> str:
        return render_anchor(self.prompts, guidance)

    def _common(self, effect: RunAgent, task: TaskContext) -> dict[str, object]:
        guidance = effect.guidance or Guidance()
        return {
            **issue_fields(effect, task),
            "anchor": self.anchor(effect.guidance),
            "failures": quoted("the failure history", failure_lines(guidance.failures)),
        }

    def doctor(self, effect: RunAgent, task: TaskContext) -> Conversation:
        guidance = effect.guidance or Guidance()
        text = self.prompts.render(
            "doctor.briefing",
            **self._common(effect, task),
            strong=guidance.strong,
            budgets=guidance.budgets,
        )
        return Conversation(self.prompts.render("doctor.system"), (Message.user(text),))

    def replanner(self, effect: RunAgent, task: TaskContext, files: TaskFiles) -> Conversation:
        plan = task.plan or "(no plan)"
        shown = plan if len(plan) <= self.settings.plan_chars else plan[: self.settings.plan_chars]
        text = self.prompts.render(
            "replanner.briefing",
            **self._common(effect, task),
            plan=quoted("the plan", shown),
            repo_map=files.repo_map(task.checkout, self.settings.repo_map_chars),
        )
        return Conversation(self.prompts.render("replanner.system"), (Message.user(text),))
