"""Prompt building for the reviewers, the judge and the assessor.

Same layout as the workers' (see :mod:`workers.agents.context`): a stable block (the issue,
and the plan once it is fixed; nothing that depends on the phase, so a judge or reviewer of
the next phase reads it from the cache too) then the changing one. The code reviewer gets
the diff against the base (capped, the cut stated), the test command's result, the feedback
the worker had to answer (the previous iteration's, or what failed a wave's previous
attempt) and the worker's own report with its answers to it (a wave's: its subtasks'
reports), never the worker's tool output. The judge gets the phase's goal, the
iteration's facts as the bot measured them (the files changed, from the diff stat; the
test command's figures against the base commit's, the newly failing tests quoted), the
reviewer's feedback, its own earlier answers in this phase, and is told when the iteration
is the last, and the goal anchor once PLAN has advanced (docs/design.md §9). Both are told
where the plan's waves stand.
"""

from __future__ import annotations

from workers.agents import wavefiles
from workers.agents.context import Conversation, briefing, capped
from workers.agents.envnote import environment_note
from workers.agents.issuefields import issue_fields
from workers.agents.ladder_prompts import render_anchor
from workers.agents.prompts import Prompts
from workers.agents.roles import PHASE_GOALS
from workers.agents.settings import ContextSettings
from workers.agents.task import TaskContext
from workers.agents.taskfiles import TaskFiles
from workers.agents.testreport import versus
from workers.agents.untrusted import quoted, show_invisible
from workers.agents.wave_notes import findings_note, judge_note, review_note, walk_note
from workers.controller.effects import RunAgent
from workers.controller.phases import Phase


def tail_capped(text: str, limit: int) -> str:
    """The end of a long command output (where test failures are summarised) fits ``limit``."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return f"{text[:head]}\n[... output cut ...]\n{text[-(limit - head) :]}"


def _earlier_feedback(effect: RunAgent, files: TaskFiles) -> tuple[str, str]:
    """The feedback the worker had to answer, and when it was given: the previous
    iteration's, or for a wave's review the one that failed the wave's previous attempt."""
    wave = effect.wave
    if wave is None:
        previous = effect.iteration - 1
        return files.feedback(effect.phase, previous), f"iteration {previous}"
    if wave.attempt < 2:
        return "", ""
    text = wavefiles.feedback_text(files.root, wave.number, wave.attempt - 1)
    return text, f"wave {wave.number}, attempt {wave.attempt - 1}"


class ReviewPrompts:
    def __init__(self, prompts: Prompts, settings: ContextSettings) -> None:
        self.prompts = prompts
        self.settings = settings

    def _common(self, effect: RunAgent, task: TaskContext) -> dict[str, object]:
        return issue_fields(effect, task)

    def reviewer(
        self, effect: RunAgent, task: TaskContext, files: TaskFiles, diff: str, tests: str
    ) -> Conversation:
        common = self._common(effect, task)
        plan = quoted("the plan", task.plan or "(no plan)")
        if effect.phase is Phase.PLAN:
            stable_plan, under_review = "The plan under review is below.", plan
        else:
            stable_plan, under_review = f"{plan}\n\n(Also in `{files.plan_path}`.)", ""
        stable = self.prompts.render(
            "reviewer.briefing",
            **common,
            plan=stable_plan,
            repo_map=files.repo_map(task.checkout, self.settings.repo_map_chars),
        )
        shown, note = capped(show_invisible(diff), self.settings.diff_chars, "diff")
        report = files.worker_report(effect.phase, effect.iteration)
        if effect.wave is not None and task.walk.waves:
            report = wavefiles.reports(files.root, task.walk.waves[effect.wave.number - 1])
        waves = review_note(effect, task.walk) or walk_note(effect, task.walk, files.root)
        earlier, when = _earlier_feedback(effect, files)
        earlier, _ = capped(earlier, self.settings.feedback_chars, "feedback")
        variable = self.prompts.render(
            "reviewer.context",
            **common,
            waves=waves,
            plan_check=findings_note(effect, task.plan_findings),
            plan_under_review=under_review,
            diff=quoted("the diff", shown) if diff.strip() else "",
            diff_note=note,
            tests=tail_capped(tests, self.settings.test_output_chars) if tests else "",
            environment=environment_note(self.prompts, task.environment, detail=False),
            worker_report=quoted("the worker", report) if report.strip() else "",
            previous_feedback=quoted("earlier feedback", earlier) if earlier.strip() else "",
            previous_when=when,
            subject="plan" if effect.phase is Phase.PLAN else f"{effect.phase} change",
        )
        system = self.prompts.render(
            "plan_reviewer.system" if effect.phase is Phase.PLAN else "code_reviewer.system"
        )
        return Conversation(system, (briefing(stable, variable),))

    def _directives(self, effect: RunAgent, files: TaskFiles) -> list[str]:
        limit = self.settings.judge_directive_chars
        found = []
        for iteration, text in files.judge_texts(effect.phase, before=effect.iteration):
            shown, _ = capped(text, limit, "answer")
            found.append(f"### Iteration {iteration}\n\n{shown}")
        return found

    def judge(
        self, effect: RunAgent, task: TaskContext, files: TaskFiles, diff_stat: str = ""
    ) -> Conversation:
        """``diff_stat``: the change's files against the base commit (empty in PLAN)."""
        common = self._common(effect, task)
        run = files.test_run(effect.phase, effect.iteration)
        stat, _ = capped(diff_stat.strip(), self.settings.diff_stat_chars, "list")
        stable = self.prompts.render(
            "judge.briefing", **common, plan=quoted("the plan", task.plan) if task.plan else ""
        )
        review, _ = capped(task.review, self.settings.feedback_chars, "feedback")
        waves = judge_note(effect, task.walk) or walk_note(effect, task.walk, files.root)
        variable = self.prompts.render(
            "judge.context",
            **common,
            phase_goal=PHASE_GOALS[effect.phase],
            waves=waves,
            plan_check=findings_note(effect, task.plan_findings),
            anchor=render_anchor(self.prompts, effect.guidance),
            last_iteration=effect.last_iteration,
            directives=self._directives(effect, files),
            files_changed=quoted("the diff stat", stat) if stat else "",
            tests=files.tests_seen(effect.phase, effect.iteration) if run is None else "",
            comparison=versus(task.baseline, run) if run is not None else "",
            environment=environment_note(self.prompts, task.environment, detail=False),
            review=quoted("the reviewer", review or "(the reviewer wrote nothing)"),
        )
        return Conversation(self.prompts.render("judge.system"), (briefing(stable, variable),))

    def assessor(self, effect: RunAgent, task: TaskContext) -> Conversation:
        common = self._common(effect, task)
        stable = self.prompts.render("assessor.briefing", **common)
        variable = self.prompts.render(
            "assessor.context", **common, plan=quoted("the plan", task.plan or "(no plan)")
        )
        system = self.prompts.render("assessor.system")
        return Conversation(system, (briefing(stable, variable),))
