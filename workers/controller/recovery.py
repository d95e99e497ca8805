"""The recovery ladder's decisions, as pure functions (docs/design.md §9).

After a failed attempt, :func:`stuck_action` decides from the same-failure count, the
budget used, the replans and the escalation left; :func:`doctor_due` says whether a
diagnostic call is due and allowed. The table, read top to bottom (the first row that
matches wins):

| same failures | budget used | scope cut | escalation left | replans left | human asked | action |
|---|---|---|---|---|---|---|
| < 2 | any | any | any | any | any | CONTINUE |
| ≥ 2 | all of it | any | any | any | any | STOP |
| ≥ 2 | ≥ 80 % | no | any | any | any | REDUCE_SCOPE |
| ≥ 2 | any | any | yes | any | any | ESCALATE_MODEL |
| ≥ 2 | any | any | no | yes | any | REPLAN |
| ≥ 2 | any | any | no | no | no | BLOCKED_NEEDS_HUMAN |
| ≥ 2 | any | any | no | no | yes | STOP |
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from workers.controller.phases import Phase

SAME_FAILURES = 2  # this many identical failures in a row: the task is stuck
NEAR_END = 0.8  # the share of a budget after which only a smaller scope can still land
REPLANS_PER_PHASE = 1
REPLANS_PER_TASK = 5
EFFECT_FAILURES = 3  # failed pushes or GitHub calls in a row, no doctor left: pause
_MODEL = ConfigDict(frozen=True, extra="ignore")


class StuckAction(StrEnum):
    CONTINUE = "CONTINUE"
    ESCALATE_MODEL = "ESCALATE_MODEL"
    REPLAN = "REPLAN"
    REDUCE_SCOPE = "REDUCE_SCOPE"
    BLOCKED_NEEDS_HUMAN = "BLOCKED_NEEDS_HUMAN"
    STOP = "STOP"


class Situation(BaseModel):
    """What the table decides from."""

    model_config = _MODEL

    same_failures: int
    budget_used: float  # the largest share of any budget spent, 0..1 (1 = exhausted)
    scope_reduced: bool = False
    escalation_left: bool = False
    replans_left: bool = False
    human_asked: bool = False


def stuck_action(situation: Situation, limits: RecoveryLimits | None = None) -> StuckAction:
    """The table above (its thresholds from ``limits``)."""
    limits = limits or RecoveryLimits()
    if situation.same_failures < limits.same_failures:
        return StuckAction.CONTINUE
    if situation.budget_used >= 1.0:
        return StuckAction.STOP
    if situation.budget_used >= limits.near_end and not situation.scope_reduced:
        return StuckAction.REDUCE_SCOPE
    if situation.escalation_left:
        return StuckAction.ESCALATE_MODEL
    if situation.replans_left:
        return StuckAction.REPLAN
    if not situation.human_asked:
        return StuckAction.BLOCKED_NEEDS_HUMAN
    return StuckAction.STOP


class DoctorAction(StrEnum):
    RETRY_WITH_FIX = "retry_with_fix"
    REPLAN = "replan"
    FATAL = "fatal"
    ROLLBACK_PROVIDER = "rollback_provider"


class DoctorLimits(BaseModel):
    """How many diagnostic calls a task may make (``config/workflow.yml`` ``recovery``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_attempts: int = Field(default=2, ge=1)  # failed attempts in a phase before it is asked
    per_phase: int = Field(default=2, ge=0)
    per_task: int = Field(default=10, ge=0)
    strong: int = Field(default=5, ge=0)
    infrastructure: int = Field(default=3, ge=0)


class DoctorCalls(BaseModel):
    """The diagnostic calls a task has made, by phase and kind."""

    model_config = _MODEL

    by_phase: dict[Phase, int] = {}
    total: int = 0
    strong: int = 0
    infrastructure: int = 0

    def plus(self, phase: Phase, *, strong: bool, infrastructure: bool) -> DoctorCalls:
        return DoctorCalls(
            by_phase={**self.by_phase, phase: self.by_phase.get(phase, 0) + 1},
            total=self.total + 1,
            strong=self.strong + int(strong),
            infrastructure=self.infrastructure + int(infrastructure),
        )

    def plus_strong(self) -> DoctorCalls:
        """The strong model's second call of the same diagnosis: a call, and a strong one,
        but not another diagnosis of the phase or of an infrastructure failure."""
        return self.model_copy(update={"total": self.total + 1, "strong": self.strong + 1})

    def describe(self, limits: DoctorLimits) -> str:
        return (
            f"{self.total} of {limits.per_task} doctor calls "
            f"({self.strong} of {limits.strong} strong, "
            f"{self.infrastructure} of {limits.infrastructure} for infrastructure)"
        )


def doctor_due(
    calls: DoctorCalls,
    limits: DoctorLimits,
    phase: Phase,
    *,
    failed_attempts: int,
    infrastructure: bool,
) -> bool:
    """Whether a diagnostic call is due now and the budgets allow it."""
    due = infrastructure or failed_attempts >= limits.min_attempts
    within = calls.by_phase.get(phase, 0) < limits.per_phase and calls.total < limits.per_task
    if infrastructure:
        within = within and calls.infrastructure < limits.infrastructure
    return due and within


def strong_doctor_allowed(calls: DoctorCalls, limits: DoctorLimits) -> bool:
    """The strong model may be asked when the cheap one gave no usable answer."""
    return calls.strong < limits.strong and calls.total < limits.per_task


def replans_left(
    replans: dict[Phase, int], phase: Phase, limits: RecoveryLimits | None = None
) -> bool:
    limits = limits or RecoveryLimits()
    per_phase, per_task = limits.replans_per_phase, limits.replans_per_task
    return replans.get(phase, 0) < per_phase and sum(replans.values()) < per_task


class SpendCaps(BaseModel):
    """The task's spend budget (``config/agents.yml`` ``budget``), for the budget used."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(default=0, ge=0)  # 0: not capped
    max_dollars: float = Field(default=0.0, ge=0)
    max_seconds: float = Field(default=0.0, ge=0)


class RecoveryLimits(BaseModel):
    """The ladder's settings (``config/workflow.yml`` ``limits.recovery``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    same_failures: int = Field(default=SAME_FAILURES, ge=2)
    near_end: float = Field(default=NEAR_END, gt=0.0, le=1.0)
    replans_per_phase: int = Field(default=REPLANS_PER_PHASE, ge=0)
    replans_per_task: int = Field(default=REPLANS_PER_TASK, ge=0)
    escalation: bool = True  # ESCALATE_MODEL is available (once per task)
    doctor: DoctorLimits = DoctorLimits()
    # consecutive failures of a push or of GitHub's API (the effects wait with the task)
    # after which, with no doctor left, the task pauses BLOCKED until `/agentium retry`
    effect_failures: int = Field(default=EFFECT_FAILURES, ge=1)
    budget: SpendCaps | None = None  # filled from the agents' budget by the effective config
