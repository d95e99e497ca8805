"""Effects a failed push or GitHub call left undone, kept with the task (docs/design.md §9).

A transition's effects are performed in order; when one fails on the infrastructure (a
push git refused or could not make, GitHub's API failing after the client's retries), it
and the ones after it are stored with the task, its state is saved all the same (the
agent's work is not made again) and the failure goes to the controller as
:class:`EffectsFailed`. The next step performs them first; effects are idempotent
(:class:`~workers.github.marks.TaskMarks`), so performing one twice is harmless. Anything
else (a lost lease, a 404 or 422, a bug) raises as before.

While a push waits, the commit to push is kept in ``record.local_head`` (the pushed one,
``head_sha``, would reset it away), and ending the task keeps the checkout. A worker
whose checkout lacks that commit pushes what it has and says so in the log: the
reviewer then sees the last pushed work, and the judge sends the iteration back.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter

from workers.controller.effects import (
    Effect,
    Finish,
    MarkReady,
    OpenOrUpdatePR,
    PostComment,
    PostNomerge,
    SetLabel,
)
from workers.controller.state import WorkflowState
from workers.github.effects import GitHubEffects
from workers.github.retry import transient
from workers.gitops.runner import GitError
from workers.gitops.workspace import GitWorkspace
from workers.tasks.record import TaskRecord

log = logging.getLogger("agentium.steps")

KEPT: dict[str, type] = {
    cls.__name__: cls
    for cls in (PostComment, OpenOrUpdatePR, MarkReady, PostNomerge, SetLabel, Finish)
}
ERROR_CHARS = 2000


@dataclass(frozen=True)
class EffectFailure:
    what: str  # "push" or "github"
    error: str


def classify(effect: Effect, error: Exception) -> EffectFailure | None:
    """The infrastructure failure ``error`` is, or None for one that must raise."""
    text = f"{type(error).__name__}: {error}"[:ERROR_CHARS]
    if isinstance(error, GitError) and isinstance(effect, OpenOrUpdatePR):
        return EffectFailure("push", text)
    return EffectFailure("github", text) if transient(error) else None


def encode(effect: Effect) -> dict[str, Any]:
    fields = TypeAdapter(type(effect)).dump_python(effect, mode="json")
    return {"type": type(effect).__name__, "fields": fields}


def decode(stored: dict[str, Any]) -> Effect:
    cls = KEPT[stored["type"]]
    effect: Effect = TypeAdapter(cls).validate_python(stored["fields"])
    return effect


class Pending:
    """Performs a step's effects behind the ones still pending, and keeps what fails."""

    def __init__(self, record: TaskRecord, effects: GitHubEffects, workspace: GitWorkspace):
        self.record, self.effects, self.workspace = record, effects, workspace
        self.failed = False  # a failure in this step: no second attempt before the next

    @property
    def waiting(self) -> list[Effect]:
        return [decode(stored) for stored in self.record.pending_effects]

    @property
    def push_waiting(self) -> bool:
        return any(
            stored["type"] == OpenOrUpdatePR.__name__ for stored in self.record.pending_effects
        )

    def start_commit(self) -> str | None:
        """Where the checkout starts: the commit a waiting push must push, when it is here."""
        local, pushed = self.record.local_head, self.record.head_sha
        if local is None or local == pushed or not self.push_waiting:
            return pushed
        if self.workspace.has(local):
            return local
        log.warning(
            "the commits a waiting push was to push are not on this worker: it pushes the "
            "last pushed work, the iteration's work is redone",
            extra={"task": self.record.key, "commit": local},
        )
        self.record.local_head = None
        return pushed

    def perform(
        self, new: Sequence[Effect], state: WorkflowState, *, at_once: bool = False
    ) -> EffectFailure | None:
        """Perform what waits, then ``new``; ``at_once``: ``new`` goes first and what of it
        fails joins the end of the list (the effects of a failure's own transition: no
        failure about a failure)."""
        kept = [effect for effect in new if type(effect).__name__ in KEPT]
        waiting = self.waiting
        if self.effects.defer is not None and not waiting:
            self.effects.perform(kept, state)  # the start's: beside the first call (opening.py)
            return None
        if at_once:
            queue, before = kept, waiting
        elif self.failed and waiting:
            queue, before = [], [*waiting, *kept]  # tried once this step already
        else:
            queue, before = [*waiting, *kept], []
        self.effects.keep_checkout = self.push_waiting
        for index, effect in enumerate(queue):
            try:
                self.perform_one(effect, state)
            except Exception as error:
                failure = classify(effect, error)
                if failure is None:
                    raise
                self.failed = True
                self.keep([*before, *queue[index:]])
                return failure
        self.keep(before)
        return None

    def perform_one(self, effect: Effect, state: WorkflowState) -> None:
        if isinstance(effect, Finish) and not state.phase.is_terminal:
            return  # left waiting when the task ended; it has been resumed since
        self.effects.perform_one(effect, state)

    def keep(self, effects: list[Effect]) -> None:
        self.record.pending_effects = [encode(effect) for effect in effects]
        waits = self.push_waiting
        here = (self.workspace.path / ".git").is_dir()
        self.record.local_head = (
            (self.workspace.head() if here else self.record.local_head) if waits else None
        )
        self.effects.keep_checkout = waits
