"""What ``agentium local`` prints: the controller's steps as they happen, and its GitHub
effects as a person would see them on the issue and the pull request.

:class:`EffectsPrinter` handles the same effect kinds as
:meth:`workers.github.effects.GitHubEffects.perform`, printing instead of performing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Protocol, TextIO

from workers.controller.effects import (
    CommentKind,
    Effect,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    RunAgent,
    RunWave,
    SetLabel,
    Target,
)
from workers.controller.phases import Phase
from workers.controller.state import HistoryEntry, WorkflowState
from workers.controller.transitions import Transition

INDENT = "    "


class Branch(Protocol):
    """Where the task's commits go: the local branch."""

    @property
    def name(self) -> str: ...

    def head(self) -> str: ...

    def log(self) -> list[str]: ...

    def describe(self) -> str: ...


def outcome_line(state: WorkflowState) -> str:
    """The task's end in one line: ready, NOMERGE with the reason, BLOCKED, nothing to do."""
    reason = state.end_reason
    if state.phase is Phase.COMPLETE and state.pr_result == "ready":
        return "Outcome: READY for review (the judge approved every phase)"
    if state.phase is Phase.COMPLETE:
        overrides = "; ".join(o.describe() for o in state.round_overrides) or reason
        return f"Outcome: NOMERGE, a human must review: {overrides}"
    if state.phase is Phase.NOTHING_TO_DO:
        return f"Outcome: nothing to do: {reason}"
    if state.phase is Phase.BLOCKED:
        return f"Outcome: BLOCKED: {reason}"
    return f"Outcome: stopped in {state.phase}"


def _where(comment: PostComment) -> str:
    return "PR" if comment.target is Target.PR else "issue"


class EffectsPrinter:
    def __init__(self, out: TextIO, branch: Branch) -> None:
        self.out = out
        self.branch = branch

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out, flush=True)

    def block(self, title: str, text: str = "") -> None:
        self.say("", f"── {title} ──")
        if text.strip():
            self.say(textwrap.indent(text.strip(), INDENT))

    # the controller's steps

    def show(self, before: WorkflowState, transition: Transition) -> None:
        """The history entries the step added, then its effects."""
        for entry in transition.state.entries_since(before):
            self.entry(entry)
        self.perform(transition.effects, transition.state)

    def entry(self, entry: HistoryEntry) -> None:
        where = f"{entry.phase} {entry.iteration}/{entry.of}" if entry.of else str(entry.phase)
        self.say(f"  [{where}] {entry.summary}")

    def calling(self, effect: RunAgent | RunWave) -> None:
        if isinstance(effect, RunWave):
            names = ", ".join(effect.wave.subtasks)
            self.say(f"  … running {effect.wave.describe()}: subtasks {names}, one after another")
            return
        what = f"{effect.phase} iteration {effect.iteration}/{effect.max_iterations}"
        wave = f", {effect.wave.describe()}" if effect.wave else ""
        again = " (asked again for a verdict)" if effect.reask else ""
        self.say(f"  … running the {effect.role.lower()}: {what}{wave}{again}")

    # the effects, as GitHub would show them

    def perform(self, effects: Iterable[Effect], state: WorkflowState) -> None:
        for effect in effects:
            self.perform_one(effect, state)

    def perform_one(self, effect: Effect, state: WorkflowState) -> None:
        match effect:
            case PostComment():
                self.comment(effect, state)
            case OpenOrUpdatePR():
                self.branch_updated(effect)
            case MarkReady():
                self.block("Ready for review", "On GitHub the draft PR is marked ready.")
            case PostNomerge():
                self.nomerge(effect)
            case SetLabel():
                change = "added" if effect.present else "removed"
                self.say(f"  label {effect.name} {change}")
            case Finish():
                self.finish(state)
            case _:
                return  # RunAgent: the driver runs the agent

    def comment(self, effect: PostComment, state: WorkflowState) -> None:
        kind, data = effect.kind, effect.data
        if kind is CommentKind.STATUS:
            self.say(f"  status comment updated: {state.phase}")
        elif kind is CommentKind.PLAN:
            self.block("Plan (comment on the issue)", data.get("plan", state.plan or ""))
        elif kind is CommentKind.FEEDBACK:
            self.feedback(effect)
        else:
            text = data.get("question") or data.get("reason") or data.get("text") or ""
            text = text or data.get("summary", "")
            self.block(f"{kind.value.replace('_', ' ')} (comment on the {_where(effect)})", text)

    def feedback(self, effect: PostComment) -> None:
        data = effect.data
        title = (
            f"{data.get('phase')} iteration {data.get('iteration')}: judge says "
            f"{data.get('verdict')} → {data.get('decision')} (comment on the {_where(effect)})"
        )
        parts = [f"Judge: {data['feedback']}"] if data.get("feedback") else []
        if data.get("gate"):
            parts.append(f"Quality gate: {data['gate']}")
        review = data.get("review", "").strip()
        if review:
            parts += ["Reviewer feedback:", textwrap.indent(review, INDENT)]
        self.block(title, "\n".join(parts))

    def branch_updated(self, effect: OpenOrUpdatePR) -> None:
        head = self.branch.head()
        github = "opens the draft PR" if effect.create else "the PR auto-updates"
        self.say(f"  branch updated: {self.branch.name} at {head} (on GitHub: {github})")

    def nomerge(self, effect: PostNomerge) -> None:
        items = [f"- {o.describe()}" for o in effect.overrides] or [f"- {effect.reason}"]
        text = "The controller advanced without the judge's approval:\n" + "\n".join(items)
        self.block("NOMERGE: the PR stays a draft (comment on the PR)", text)

    def finish(self, state: WorkflowState) -> None:
        commits = self.branch.log()
        self.say("", outcome_line(state), self.branch.describe())
        if commits:
            self.say(textwrap.indent("\n".join(commits), INDENT))
