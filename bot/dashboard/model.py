"""The web side's read model of a stored task: the workers' JSON, read as plain data.

The workers write ``agentium:task:{key}`` as a ``TaskRecord`` (``workers/tasks/record.py``).
The web side never imports that code, so it reads the JSON through these small models:
unknown keys are ignored, missing ones take defaults, enum values stay plain strings (a
newer worker may write a value this side does not know yet).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError

log = logging.getLogger("agentium.dashboard")

_MODEL = ConfigDict(frozen=True, extra="ignore")


class ModelSpendView(BaseModel):
    model_config = _MODEL

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_write_tokens
            + self.cache_read_tokens
        )


class SpendView(ModelSpendView):
    by_model: dict[str, ModelSpendView] = Field(default_factory=dict)


class OverrideView(BaseModel):
    model_config = _MODEL

    phase: str = ""
    iteration: int = 0
    rule: str = ""
    detail: str = ""
    round: int = 0


class StepView(BaseModel):
    """One history entry: an agent's (or the controller's) step."""

    model_config = _MODEL

    phase: str = ""
    iteration: int = 0
    of: int = 0
    role: str = ""
    verdict: str | None = None
    summary: str = ""
    excerpt: str = ""
    at: datetime | None = None
    round: int = 0
    event: str | None = None  # a step of the wave walk: wave_started, subtask_completed, ...
    wave: int = 0
    subtask: str = ""


class SubtaskView(BaseModel):
    model_config = _MODEL

    id: str = ""
    title: str = ""
    kind: str | None = None
    status: str = "pending"
    attempt: int = 0
    error: str = ""
    summary: str = ""


class WaveView(BaseModel):
    model_config = _MODEL

    number: int = 0
    subtasks: tuple[SubtaskView, ...] = ()
    status: str = "pending"
    attempt: int = 0
    max_attempts: int = 2
    commit: str = ""
    error: str = ""
    verdict: str | None = None


class WalkView(BaseModel):
    """The waves of a plan (docs/design.md §8), as the workers stored them."""

    model_config = _MODEL

    waves: tuple[WaveView, ...] = ()
    current: int = 0
    stopped: str = ""
    finished: bool = False


class PauseView(BaseModel):
    model_config = _MODEL

    phase: str = ""
    reason: str = ""


class LadderStepView(BaseModel):
    """One step of the recovery ladder (``LadderStep`` on the workers' side)."""

    model_config = _MODEL

    action: str = ""
    phase: str = ""
    iteration: int = 0
    round: int = 0
    detail: str = ""


class AnchorView(BaseModel):
    model_config = _MODEL

    title: str = ""
    digest: str = ""
    goal: str = ""


class RecoveryView(BaseModel):
    """The recovery ladder's record of a task (docs/design.md §9)."""

    model_config = _MODEL

    anchor: AnchorView | None = None
    steps: tuple[LadderStepView, ...] = ()
    budgets: str = ""
    fallback: tuple[str, ...] = ()
    escalated: str | None = None
    cuts: tuple[str, ...] = ()


class WorkflowView(BaseModel):
    model_config = _MODEL

    phase: str = "PLAN"
    iteration: int = 0
    path: str | None = None
    iterations: dict[str, int] = Field(default_factory=dict)
    controller_overrode: bool = False
    overrides: tuple[OverrideView, ...] = ()
    pr_open: bool = False
    paused: PauseView | None = None
    end_reason: str = ""
    history: tuple[StepView, ...] = ()
    spend: SpendView = SpendView()
    walk: WalkView = WalkView()
    recovery: RecoveryView = RecoveryView()


class EnvironmentView(BaseModel):
    """The task's environment step (``EnvironmentOutcome`` on the workers' side)."""

    model_config = _MODEL

    ok: bool = False
    command: str = ""
    source: str = ""
    seconds: float = 0.0
    cached: bool = False
    network: bool = True
    exit_code: int | None = None
    timed_out: bool = False
    tail: str = ""

    @property
    def status(self) -> str:
        if self.ok:
            return "ok"
        if self.timed_out:
            return "failed: timed out"
        return "failed" + (f" (exit code {self.exit_code})" if self.exit_code is not None else "")


class TaskView(BaseModel):
    """What the dashboard and /metrics need from a stored task; nothing secret."""

    model_config = _MODEL

    repo: str
    issue: int
    status: str = "active"
    status_reason: str | None = None
    pr_number: int | None = None
    trigger_user: str = ""
    issue_title: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    workflow: WorkflowView = WorkflowView()
    environment: EnvironmentView | None = None

    @property
    def key(self) -> str:
        return f"{self.repo.lower()}#{self.issue}"

    @property
    def last_verdict(self) -> str | None:
        verdicts = [step.verdict for step in self.workflow.history if step.verdict]
        return verdicts[-1] if verdicts else None

    @property
    def iteration_limit(self) -> int | None:
        """The limit of the current phase's iterations, as the last step in it recorded."""
        flow = self.workflow
        steps = [s.of for s in flow.history if s.phase == flow.phase and s.of]
        return steps[-1] if steps else None

    @property
    def nomerge(self) -> bool:
        """The PR is (or will be) left as a draft with a NOMERGE comment."""
        return self.workflow.controller_overrode


def parse_task(raw: bytes | str) -> TaskView | None:
    """The task in ``raw``, or None (logged) when it is not a task this side can read."""
    try:
        return TaskView.model_validate_json(raw)
    except ValidationError as error:
        log.warning("unreadable task record", extra={"errors": error.error_count()})
        return None


def age_seconds(moment: datetime | None, now: datetime) -> float | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (now - moment).total_seconds())


def describe_age(seconds: float | None) -> str:
    """``42s``, ``5m``, ``3h``, ``2d``; an em dash when unknown."""
    if seconds is None:
        return "\u2014"
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
