"""The state of a plan's wave walk (docs/design.md §8), part of ``WorkflowState``.

Every field has a default, so state written before waves existed still loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from workers.controller.phases import Verdict
from workers.controller.plan import PlanTask, SubtaskType

_MODEL = ConfigDict(frozen=True, extra="ignore")


class RunStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    RETRYING = "retrying"


class WaveEvent(StrEnum):
    """What a history entry of the walk reports (the dashboard draws them)."""

    WAVE_STARTED = "wave_started"
    WAVE_COMPLETED = "wave_completed"
    WAVE_FAILED = "wave_failed"
    WAVE_RETRY = "wave_retry"
    SUBTASK_STARTED = "subtask_started"
    SUBTASK_COMPLETED = "subtask_completed"
    SUBTASK_FAILED = "subtask_failed"
    JOINED = "joined"
    WALK_STOPPED = "walk_stopped"


class WaveFeedback(BaseModel):
    """What a retried wave's subtasks are told: the full review, the judge's line."""

    model_config = _MODEL

    review: str = ""
    judge: str = ""


class SubtaskState(BaseModel):
    model_config = _MODEL

    id: str
    title: str = ""
    kind: SubtaskType | None = None
    status: RunStatus = RunStatus.PENDING
    attempt: int = 0
    started_at: datetime | None = None
    completed_at: datetime | None = None
    error: str = ""
    summary: str = ""  # the first line of the subtask worker's report

    def label(self) -> str:
        kind = f"[{self.kind}] " if self.kind else ""
        return f"{kind}{self.id} {self.title}".strip()


class WaveState(BaseModel):
    model_config = _MODEL

    number: int  # 1-based
    subtasks: tuple[SubtaskState, ...] = ()
    status: RunStatus = RunStatus.PENDING
    attempt: int = 0
    max_attempts: int = 2
    started_at: datetime | None = None
    completed_at: datetime | None = None
    start_commit: str = ""  # where every attempt starts (reset to it on a retry)
    commit: str = ""  # the wave's one commit, once joined
    error: str = ""  # a conflict at the join, or why the wave failed
    review: str = ""  # the wave reviewer's feedback on the latest attempt
    verdict: Verdict | None = None  # the wave judge's on the latest attempt
    feedback: WaveFeedback | None = None  # what a retry attempt is told

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.subtasks)

    def subtask(self, subtask_id: str) -> SubtaskState:
        for item in self.subtasks:
            if item.id == subtask_id:
                return item
        raise KeyError(subtask_id)

    def commit_title(self) -> str:
        """``Wave 2: Implement User model, Implement Post model``."""
        return f"Wave {self.number}: " + ", ".join(s.title or s.id for s in self.subtasks)


class WaveWalk(BaseModel):
    """The waves of IMPLEMENT iteration 1 on the COMPLEX path; ``current`` is 0-based."""

    model_config = _MODEL

    waves: tuple[WaveState, ...] = ()
    current: int = 0
    stopped: str = ""  # why the walk ended before its last wave
    finished: bool = False

    @property
    def wave(self) -> WaveState:
        return self.waves[self.current]

    def with_wave(self, wave: WaveState) -> WaveWalk:
        waves = tuple(wave if w.number == wave.number else w for w in self.waves)
        return self.model_copy(update={"waves": waves})


def new_walk(layout: Sequence[Sequence[PlanTask]], max_attempts: int) -> WaveWalk:
    waves = tuple(
        WaveState(
            number=n,
            max_attempts=max_attempts,
            subtasks=tuple(SubtaskState(id=t.id, title=t.title, kind=t.kind) for t in wave),
        )
        for n, wave in enumerate(layout, 1)
    )
    return WaveWalk(waves=waves)
