"""The workflow state of one task, stored in Redis as versioned JSON.

Every field has a default, so JSON written by an older version still loads; unknown keys
(from a newer version) are ignored. Bump ``SCHEMA_VERSION`` when a field changes meaning.
``controller_overrode`` is per review round; ``overrides`` keep every round's, each tagged
with its round.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from workers.controller.ladder_state import Recovery
from workers.controller.memory import Memory
from workers.controller.phases import OverrideRule, Path, Phase, Role, Verdict
from workers.controller.spend import Spend
from workers.controller.testrun import TestRun
from workers.controller.wavestate import WaveEvent, WaveWalk

SCHEMA_VERSION = 1
_MODEL = ConfigDict(frozen=True, extra="ignore")


class Override(BaseModel):
    """One time the controller advanced without the judge's ADVANCE."""

    model_config = _MODEL

    phase: Phase
    iteration: int
    rule: OverrideRule
    detail: str = ""
    round: int = 0  # the review round (0: the task's first run)

    def describe(self) -> str:
        return f"{self.phase} iteration {self.iteration}: {self.rule} ({self.detail})"


class Feedback(BaseModel):
    """What the next worker iteration is told: the reviewer's text and the judge's line."""

    model_config = _MODEL

    review: str = ""
    judge: str = ""
    human: str = ""  # set when ``review`` is a human's PR review: their login
    broken: tuple[str, ...] = ()  # tests the quality gate found broken (the repository's ids)


class Awaiting(BaseModel):
    """The agent call the task waits for; enough to rebuild the request after a crash."""

    model_config = _MODEL

    role: Role
    reask: bool = False
    wave: int = 0  # the wave (1-based) whose subtasks, reviewer or judge the task waits for


class Pause(BaseModel):
    """Where a task stopped by an error or ``/agentium stop`` resumes on ``/agentium retry``."""

    model_config = _MODEL

    phase: Phase
    awaiting: Awaiting
    reason: str = ""


class HistoryEntry(BaseModel):
    """One step of the task, for the status comment and for debugging."""

    model_config = _MODEL

    phase: Phase
    iteration: int
    of: int = 0
    role: Role
    verdict: Verdict | None = None
    summary: str = ""
    excerpt: str = ""
    at: datetime | None = None
    round: int = 0
    event: WaveEvent | None = None  # an entry of the wave walk (docs/design.md §8)
    wave: int = 0
    subtask: str = ""


class ReviewRound(BaseModel):
    """One human review loop after COMPLETE: the batched review and what came of it."""

    model_config = _MODEL

    number: int
    user: str = ""
    reviews: tuple[str, ...] = ()
    text: str = ""
    at: datetime | None = None
    was_ready: bool = False  # the PR had been marked ready when the round began
    pushed: bool = False  # the round pushed new commits to the PR


class WorkflowState(BaseModel):
    model_config = _MODEL

    schema_version: int = SCHEMA_VERSION
    phase: Phase = Phase.PLAN
    iteration: int = 0
    path: Path | None = None
    awaiting: Awaiting | None = None
    paused: Pause | None = None
    iterations: dict[Phase, int] = Field(default_factory=dict)

    controller_overrode: bool = False
    overrides: tuple[Override, ...] = ()
    no_signal_count: int = 0

    has_commits: bool = False
    iteration_commits: bool = False
    pr_open: bool = False

    plan: str | None = None
    plan_errors: tuple[str, ...] = ()  # the plan check of the latest PLAN answer
    plan_findings: tuple[str, ...] = ()  # TDD findings shown to the plan reviewer and judge
    total_tasks: int = 1
    walk: WaveWalk = WaveWalk()
    review: str = ""
    feedback: Feedback | None = None
    baseline: TestRun | None = None  # the test command on the base commit (None: not taken)
    tests: TestRun | None = None  # the test command on the iteration's change, if it ran
    end_reason: str = ""

    memory: Memory = ()
    history: tuple[HistoryEntry, ...] = ()  # the newest entries (controller/moves.py)
    history_dropped: int = 0  # older entries no longer kept

    review_rounds: tuple[ReviewRound, ...] = ()
    spend: Spend = Spend()
    recovery: Recovery = Recovery()  # the recovery ladder (workers/controller/ladder.py)

    @property
    def history_count(self) -> int:
        """Entries ever recorded, kept or not: grows by one with every entry."""
        return self.history_dropped + len(self.history)

    def entries_since(self, before: WorkflowState) -> tuple[HistoryEntry, ...]:
        """The entries recorded since ``before``, an earlier copy of this task's state."""
        new = self.history_count - before.history_count
        return self.history[len(self.history) - new :] if new > 0 else ()

    @property
    def started(self) -> bool:
        return self.iteration > 0 or self.phase.is_terminal

    @property
    def round(self) -> int:
        """The current review round: 0 until a human review reopens the COMPLETE task."""
        return len(self.review_rounds)

    @property
    def review_round(self) -> ReviewRound | None:
        return self.review_rounds[-1] if self.review_rounds else None

    @property
    def round_overrides(self) -> tuple[Override, ...]:
        """The overrides of the current round (``controller_overrode`` is per round)."""
        return tuple(o for o in self.overrides if o.round == self.round)

    def judge_directives(self) -> list[str]:
        """The judge's earlier feedback in the current phase and round, oldest first."""
        return [
            h.excerpt
            for h in self.history
            if h.role is Role.JUDGE
            and h.phase is self.phase
            and h.round == self.round
            and h.verdict
            and not h.wave
            and h.excerpt
        ]

    @property
    def pr_result(self) -> str:
        """The final PR action: ``ready``, ``nomerge`` or ``none``."""
        if self.phase is not Phase.COMPLETE or not self.pr_open:
            return "none"
        return "nomerge" if self.controller_overrode else "ready"
