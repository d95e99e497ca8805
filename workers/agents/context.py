"""Prompt building for the workers (docs/design.md §2).

A conversation starts with one user message of two blocks. The first is stable for the
whole phase (the phase's instructions, the issue pinned as the goal, the repository map, the
plan's path and tasks, the scratch directory) and ends a cache breakpoint; the second
carries what changes: earlier phases' summaries with their commit SHAs, memory, the test
command, the whole plan with its breadcrumb (a wave's subtasks have their own second block,
see workers.agents.subtask_prompts), the previous feedback in full with the action items
last, and the goal recited. The system prompt and the tool definitions never change for a
role, so every call of a role shares its cached prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.agents.envnote import environment_note
from workers.agents.llm import Message, Text
from workers.agents.prompts import Prompts
from workers.agents.settings import ContextSettings
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.agents.testing import command_for
from workers.agents.testreport import headline, listed
from workers.agents.untrusted import issue_text, quoted, strip_hidden
from workers.controller import gate, memory
from workers.controller.effects import RunAgent, Session
from workers.controller.guidance import Guidance
from workers.controller.phases import WORK_PHASES, Phase
from workers.controller.plan import TASK_HEADER_RE
from workers.controller.state import Feedback

FRAMINGS = (
    "The previous iteration was not accepted. A different approach may be needed",
    "Read the feedback below carefully before you change anything",
    "The last attempt had problems. Consider an alternative to what was tried",
)
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)")
MAX_ACTION_ITEMS = 12
RECITE_CHARS = 300
ITEM_CHARS = 160


@dataclass(frozen=True)
class Conversation:
    system: str
    messages: tuple[Message, ...]


def capped(text: str, limit: int, what: str) -> tuple[str, str]:
    """``text`` cut to ``limit`` characters, and a note saying whether and where it was cut."""
    if len(text) <= limit:
        return text, f"complete, {len(text):,} characters"
    note = f"cut: the first {limit:,} of {len(text):,} characters; read the files for the rest"
    return text[:limit] + f"\n[... {what} cut here ...]", note


def briefing(stable: str, variable: str) -> Message:
    """The first user message: the cacheable block, then the changing one."""
    return Message(role="user", content=(Text(text=stable), Text(text=variable)))


def review_items(review: str) -> list[str]:
    """The numbered or bulleted items of a review, each with its continuation lines."""
    items: list[str] = []
    in_item = False
    for line in review.splitlines():
        match = _ITEM_RE.match(line)
        if match:
            items.append(match[1])
            in_item = True
        elif in_item and line[:1] in (" ", "\t") and line.strip():
            items[-1] += " " + line.strip()
        else:
            in_item = False
    return items


def action_items(feedback: Feedback) -> str:
    items = [f"The judge: {feedback.judge}"] if feedback.judge else []
    items += review_items(feedback.review)
    if len(items) <= 1:
        items.append("Address every point of the reviewer's feedback above.")
    shown = items[:MAX_ACTION_ITEMS]
    if len(items) > len(shown):
        shown.append(f"... and {len(items) - len(shown)} more in the feedback above.")
    return "\n".join(f"{n}. {_shorten(strip_hidden(item))}" for n, item in enumerate(shown, 1))


def _shorten(item: str) -> str:
    return item if len(item) <= ITEM_CHARS else item[: ITEM_CHARS - 1] + "…"


def phase_summaries(files: TaskFiles, current: Phase) -> list[str]:
    """One short summary per finished phase before ``current``: O(phases), not O(tokens).

    The PLAN phase's result, the plan, is referenced in the stable block instead.
    """
    found = []
    for phase in WORK_PHASES[1 : WORK_PHASES.index(current)]:
        summary = files.summary(phase)
        if summary is not None:
            found.append(summary.render(files.phase_dir(phase) / "summary.md"))
    return found


def task_headers(plan: str) -> list[str]:
    return [line for line in plan.splitlines() if TASK_HEADER_RE.match(line)]


def _assignment(effect: RunAgent) -> str:
    if effect.phase is Phase.PLAN:
        return "Write the plan for it now, or say that nothing needs to be done."
    if effect.phase is Phase.DOCS:
        return "Update the documentation for the implemented change now."
    return "Make the change with its tests, and address the action items."


def _recital(task: TaskContext) -> str:
    body = strip_hidden(task.issue_body).strip()
    short = body if len(body) <= RECITE_CHARS else body[:RECITE_CHARS] + " [...]"
    return quoted("the issue (recited; full text at the top)", short)


def tests_note(effect: RunAgent, task: TaskContext) -> str:
    """What the worker is told about the repository's test command (IMPLEMENT and DOCS)."""
    if effect.phase is Phase.PLAN:
        return ""
    command = command_for(task)
    if command is None:
        return (
            "No test command is configured in the repository's settings or detectable. Find "
            "how the tests run (README, CI files, Makefile) and say in your report what you ran."
        )
    where = "configured" if task.test_command and task.test_command.strip() else "detected"
    note = (
        f"`{command}` ({where}). Run it with run_command before you finish, and fix what "
        "fails because of your change; the reviewer runs it on your result too."
    )
    baseline = task.baseline
    if baseline is None or gate.off_reason(baseline) is not None:
        return note
    gated = " The change is not accepted while a test that did not fail there fails."
    said = f"{note} On the base commit, before any change, it gave: {headline(baseline)}."
    return said + (gated if effect.phase is Phase.IMPLEMENT else "")


def ladder_notes(effect: RunAgent) -> dict[str, object]:
    """What the recovery ladder tells the worker (docs/design.md §9); a person's answer is
    GitHub text, shown as data."""
    guidance = effect.guidance or Guidance()
    answer = quoted("a person's answer", strip_hidden(guidance.answer))
    return {
        "approach": guidance.approach,
        "hint": guidance.hint,
        "answer": answer if guidance.answer else "",
        "reduce_scope": guidance.reduce_scope,
    }


class WorkerPrompts:
    """Builds the worker's conversation for one RunAgent effect."""

    def __init__(self, prompts: Prompts, settings: ContextSettings) -> None:
        self.prompts = prompts
        self.settings = settings
        self.feedback_chars = settings.feedback_chars

    def system(self) -> str:
        return self.prompts.render("worker.system")

    def stable(
        self,
        effect: RunAgent,
        task: TaskContext,
        files: TaskFiles,
        plan_path: str = "",
        scratch: str | None = None,
    ) -> str:
        """The cacheable block; ``plan_path`` names the plan instead of its path and
        ``scratch=""`` leaves the scratch directory out (a wave's subtasks each have a
        private copy of the task's files, at different paths: theirs are named later)."""
        default_scratch = str(files.scratch_dir) if effect.phase is not Phase.PLAN else ""
        return self.prompts.render(
            "worker.briefing",
            phase=effect.phase.value,
            iteration=effect.iteration,
            max_iterations=effect.max_iterations,
            phase_instructions=self.prompts.render(effect.phase.value.lower()),
            issue_number=task.issue_number,
            issue=issue_text(task.issue_title, task.issue_body),
            repo_map=files.repo_map(task.checkout, self.settings.repo_map_chars),
            plan_path=(plan_path or str(files.plan_path)) if task.plan else "",
            task_headers="\n".join(task_headers(task.plan or "")),
            scratch=scratch if scratch is not None else default_scratch,
        )

    def _feedback(self, effect: RunAgent, files: TaskFiles) -> dict[str, str]:
        feedback = effect.feedback
        if feedback is None or not (feedback.review or feedback.judge):
            return {"feedback": ""}
        files.write_feedback(effect.phase, effect.iteration - 1, feedback)
        folder = files.phase_dir(effect.phase)
        review = feedback.review[: self.feedback_chars]
        return {
            "feedback": quoted("the reviewer", review or "(no review text)"),
            "judge_line": strip_hidden(feedback.judge),
            "feedback_files": f"`feedback-N.md` (N = iteration) in `{folder}`",
            "action_items": action_items(feedback),
            "broken": listed("the tests", feedback.broken) if feedback.broken else "",
            "framing": FRAMINGS[(effect.iteration - 2) % len(FRAMINGS)],
        }

    def _task(self, effect: RunAgent, task: TaskContext) -> dict[str, str]:
        plan = task.plan or ""
        if effect.phase is Phase.PLAN or not plan:
            return {"task_section": ""}
        shown, note = capped(plan, self.settings.plan_chars, "plan")
        if not task_headers(plan):
            return {"breadcrumb": f"The plan is one task ({note})", "task_section": shown}
        whole = f"The whole plan applies: all its tasks together ({note})"
        return {"breadcrumb": whole, "task_section": shown}

    def variable(
        self, effect: RunAgent, task: TaskContext, files: TaskFiles, *, continued: bool
    ) -> str:
        remembered = memory.render(task.memory, task.memory_budget_chars, task.memory_priorities)
        values: dict[str, object] = {
            "continued": continued,
            "phase": effect.phase.value,
            "iteration": effect.iteration,
            "max_iterations": effect.max_iterations,
            "phase_instructions": self.prompts.render(effect.phase.value.lower()),
            "summaries": phase_summaries(files, effect.phase),
            "memory": remembered,
            "environment": environment_note(self.prompts, task.environment, detail=True),
            "comments": [quoted("a comment", strip_hidden(c)) for c in task.comments],
            "issue_number": task.issue_number,
            "issue_title": strip_hidden(task.issue_title).strip(),
            "assignment": _assignment(effect),
            "test_command": tests_note(effect, task),
            **self._task(effect, task),
            **self._feedback(effect, files),
            **ladder_notes(effect),
        }
        text = self.prompts.render("worker.context", **values)
        return f"{text}\n{_recital(task)}\n"

    def conversation(self, effect: RunAgent, task: TaskContext, files: TaskFiles) -> Conversation:
        if task.plan:
            files.write_plan(task.plan)
        earlier = files.load_session("worker") if effect.session is Session.CONTINUE else None
        if earlier:
            turn = Message.user(self.variable(effect, task, files, continued=True))
            return Conversation(self.system(), (*earlier, turn))
        first = briefing(
            self.stable(effect, task, files), self.variable(effect, task, files, continued=False)
        )
        return Conversation(self.system(), (first,))
