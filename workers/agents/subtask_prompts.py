"""The prompt of one subtask of a wave (docs/design.md §8): scoped context, stable prefix.

The conversation starts as every IMPLEMENT worker's does: the same system prompt, tools and
stable block (the issue, the repository's files, the plan's path and task headers), then
the rules of a wave's subtasks (the same for all of them), so all the subtasks of a task
share one cached prefix. The second block is the subtask's own:
the earlier waves' summaries (with their restoration references), its direct dependencies
(title and description), the plan sections that mention its files, on a retry the full
review with the action items last and a framing that changes per attempt, and at the end
its assignment restated with the test command and its own scratch directory (named here,
not in the shared block: its path differs per subtask), "Make the changes. Do NOT commit."
"""

from __future__ import annotations

from workers.agents import wavefiles
from workers.agents.context import (
    FRAMINGS,
    Conversation,
    WorkerPrompts,
    action_items,
    briefing,
    tests_note,
)
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.agents.untrusted import quoted, strip_hidden
from workers.controller.effects import RunAgent
from workers.controller.plan import (
    PlanTask,
    plan_tasks,
    sections_mentioning,
    task_section,
)
from workers.controller.plan_check import dependencies

DEPENDENCY_CHARS = 800
SECTIONS_CHARS = 6000


class SubtaskError(ValueError):
    """The effect names a subtask the plan does not have (a controller bug)."""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _find(tasks: tuple[PlanTask, ...], subtask: str) -> tuple[int, PlanTask]:
    for index, item in enumerate(tasks):
        if item.id == subtask:
            return index, item
    raise SubtaskError(f"the plan has no task {subtask}")


def _dependencies(tasks: tuple[PlanTask, ...], me: PlanTask) -> list[str]:
    by_id = {t.id: t for t in tasks}
    found = []
    for needed in dependencies(tasks).get(me.id, ()):
        other = by_id.get(needed)
        if other is not None:
            text = _cut(other.description, DEPENDENCY_CHARS)
            found.append(f"- **{other.label()}**" + (f": {text}" if text else ""))
    return found


def _sections(plan: str, index: int, me: PlanTask) -> list[str]:
    found = sections_mentioning(plan, me.files, skip=task_section(plan, index))
    shown, used = [], 0
    for section in found:
        if used + len(section) > SECTIONS_CHARS:
            shown.append("[more sections mention your files: read the full plan]")
            break
        shown.append(section)
        used += len(section)
    return shown


class SubtaskPrompts:
    def __init__(self, workers: WorkerPrompts) -> None:
        self.workers = workers
        self.prompts = workers.prompts

    def _feedback(self, effect: RunAgent, files: TaskFiles) -> dict[str, object]:
        wave, feedback = effect.wave, effect.feedback
        if wave is None or feedback is None or wave.attempt < 2:
            return {"feedback": ""}
        review = feedback.review[: self.workers.feedback_chars]
        path = wavefiles.feedback_path(files.root, wave.number, wave.attempt - 1)
        return {
            "feedback": quoted("the review", review or "(no review text)"),
            "judge_line": strip_hidden(feedback.judge),
            "feedback_file": str(path),
            "action_items": action_items(feedback),
            "framing": FRAMINGS[(wave.attempt - 2) % len(FRAMINGS)],
        }

    def variable(self, effect: RunAgent, task: TaskContext, files: TaskFiles) -> str:
        wave, subtask, plan = effect.wave, effect.subtask or "", task.plan or ""
        if wave is None:
            raise SubtaskError("a subtask call without its wave")
        tasks = plan_tasks(plan)
        index, me = _find(tasks, subtask)
        values: dict[str, object] = {
            "wave": wave.number,
            "waves": wave.of,
            "attempt": wave.attempt,
            "max_attempts": wave.max_attempts,
            "subtask_id": me.id,
            "siblings": len(wave.subtasks),
            "start": wave.start_commit[:12] or "the wave's starting commit",
            "summaries": wavefiles.summaries(files.root, before=wave.number),
            "dependencies": _dependencies(tasks, me),
            "sections": _sections(plan, index, me),
            "plan_path": str(files.plan_path),
            "scratch": str(files.scratch_dir),
            "test_command": tests_note(effect, task),
            "title": me.title,
            "kind": me.kind.value if me.kind else "not given (do what the plan says)",
            "files": ", ".join(f"`{f}`" for f in me.files) or "not named: see the plan",
            "description": me.description or task_section(plan, index),
            "issue_number": task.issue_number,
            "issue_title": strip_hidden(task.issue_title).strip(),
            **self._feedback(effect, files),
        }
        return self.prompts.render("subtask.context", **values)

    def conversation(self, effect: RunAgent, task: TaskContext, files: TaskFiles) -> Conversation:
        if task.plan:
            files.write_plan(task.plan)
        named = "file `plan.md` of the task's files (its path is at the end)"
        rules = self.prompts.render("subtask.rules")
        stable = self.workers.stable(effect, task, files, plan_path=named, scratch="")
        stable += "\n" + rules
        first = briefing(stable, self.variable(effect, task, files))
        return Conversation(self.workers.system(), (first,))
