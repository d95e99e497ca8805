"""What the caller must do after a step: the outputs of ``step``. Performing them is I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from workers.controller.guidance import Guidance
from workers.controller.phases import Phase, Role
from workers.controller.state import Feedback, Override


class Session(StrEnum):
    NEW = "new"
    CONTINUE = "continue"


@dataclass(frozen=True)
class WavePointer:
    """Which wave of the plan a call belongs to (docs/design.md §8); ``number`` is 1-based,
    ``subtasks`` are the wave's task ids in plan order, ``start_commit`` where it starts."""

    number: int
    of: int
    attempt: int
    max_attempts: int
    subtasks: tuple[str, ...]
    start_commit: str = ""

    def describe(self) -> str:
        retry = f", attempt {self.attempt} of {self.max_attempts}" if self.attempt > 1 else ""
        return f"Wave {self.number} of {self.of}{retry}"


@dataclass(frozen=True)
class RunAgent:
    """Run one agent and feed its outcome back to ``step``.

    ``session`` says whether the worker conversation starts afresh or continues (SIMPLE path
    after the first IMPLEMENT iteration, and the judge's re-ask). ``wave`` is set while the
    first COMPLEX IMPLEMENT iteration walks the plan's waves: for a subtask's worker
    (``subtask`` is its task id; it changes files and does not commit), and for the wave's
    reviewer and judge. Otherwise the whole plan applies.
    ``guidance`` is what the recovery ladder tells this call (workers/controller/guidance.py).
    """

    role: Role
    phase: Phase
    iteration: int
    max_iterations: int
    routing_key: str
    session: Session = Session.NEW
    feedback: Feedback | None = None
    wave: WavePointer | None = None
    subtask: str | None = None
    reask: bool = False
    guidance: Guidance | None = None

    @property
    def last_iteration(self) -> bool:
        return self.iteration >= self.max_iterations


@dataclass(frozen=True)
class RunWave:
    """Run the subtasks of a wave at once (one worker call each, ``calls`` in plan order),
    then join their changes into one commit; the outcome is ``WaveJoined``."""

    wave: WavePointer
    calls: tuple[RunAgent, ...]


class Target(StrEnum):
    ISSUE = "issue"
    PR = "pr"


class CommentKind(StrEnum):
    STATUS = "status"  # the one status comment on the issue, edited in place
    PLAN = "plan"  # the plan, on the issue, when PLAN advances
    FEEDBACK = "feedback"  # reviewer feedback + judge verdict, one per iteration
    BLOCKED = "blocked"
    NOTHING_TO_DO = "nothing_to_do"
    STOPPED = "stopped"
    COMMAND_REPLY = "command_reply"
    REVIEW_REPLY = "review_reply"  # on the PR, once per human review round, when it ends
    QUESTION = "question"  # the recovery ladder asks a person one question; the task pauses


@dataclass(frozen=True)
class PostComment:
    target: Target
    kind: CommentKind
    data: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OpenOrUpdatePR:
    """Push ``agentium/issue-<N>``; open the draft PR (``Fixes #N``) or adopt an existing one."""

    create: bool


@dataclass(frozen=True)
class MarkReady:
    """Mark the PR ready for review and request review from whoever triggered the task."""


@dataclass(frozen=True)
class PostNomerge:
    """Leave the PR draft and explain on it why a human must review (each override)."""

    reason: str
    overrides: tuple[Override, ...]
    redraft: bool = False  # an earlier review round had marked the PR ready: make it draft


@dataclass(frozen=True)
class SetLabel:
    name: str
    present: bool = True


@dataclass(frozen=True)
class Finish:
    final_phase: Phase


Effect = (
    RunAgent | RunWave | PostComment | OpenOrUpdatePR | MarkReady | PostNomerge | SetLabel | Finish
)

BLOCKED_LABEL = "agentium:blocked"
