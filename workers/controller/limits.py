"""Workflow settings: iteration limits per path, the no-signal limit, the recovery ladder's
limits, the memory budget, the plan rules (``tdd``, ``waves.max_attempts``).

Loaded from ``config/workflow.yml`` (the defaults) or from any mapping of the same shape,
such as a repository's ``.github/agentium.yml`` section, and validated with errors naming
the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError

from workers.controller.errors import ConfigError
from workers.controller.memory import MemoryType
from workers.controller.phases import Path, Phase
from workers.controller.plan_check import TddMode
from workers.controller.recovery import RecoveryLimits

_STRICT = ConfigDict(frozen=True, extra="forbid")


class PhaseLimits(BaseModel):
    model_config = _STRICT

    PLAN: PositiveInt
    IMPLEMENT: PositiveInt
    DOCS: PositiveInt


class Limits(BaseModel):
    """What :func:`workers.controller.transitions.step` needs to know about limits."""

    model_config = _STRICT

    SIMPLE: PhaseLimits = PhaseLimits(PLAN=1, IMPLEMENT=2, DOCS=1)
    COMPLEX: PhaseLimits = PhaseLimits(PLAN=3, IMPLEMENT=5, DOCS=3)
    eval_no_signal_limit: int = Field(default=2, ge=0)
    recovery: RecoveryLimits = RecoveryLimits()  # the recovery ladder (docs/design.md §9)

    def max_iterations(self, path: Path | None, phase: Phase) -> int:
        """The limit for ``phase``; before the path is known the COMPLEX limits apply."""
        table = self.SIMPLE if path is Path.SIMPLE else self.COMPLEX
        limit: int = getattr(table, phase.value)
        return limit


DEFAULT_PRIORITIES: tuple[MemoryType, ...] = (
    MemoryType.KEY_FACT,
    MemoryType.EVAL_FEEDBACK,
    MemoryType.STEP_PENDING,
    MemoryType.DECISION,
    MemoryType.PHASE_RESULT,
    MemoryType.ERROR,
    MemoryType.FILE_MODIFIED,
    MemoryType.STEP_DONE,
)


class MemoryConfig(BaseModel):
    model_config = _STRICT

    budget_chars: PositiveInt = 6000
    priorities: tuple[MemoryType, ...] = DEFAULT_PRIORITIES


MAX_WAVE_ATTEMPTS = 5


class WaveLimits(BaseModel):
    model_config = _STRICT

    max_attempts: int = Field(default=2, ge=1, le=MAX_WAVE_ATTEMPTS)


class PlanRules(BaseModel):
    """What :func:`workers.controller.transitions.step` needs to know about plans
    (docs/design.md §8): how the TDD rule counts, how often a wave may be attempted."""

    model_config = _STRICT

    tdd: TddMode = TddMode.ADVISORY
    wave_attempts: int = Field(default=2, ge=1, le=MAX_WAVE_ATTEMPTS)


class WorkflowConfig(BaseModel):
    model_config = _STRICT

    limits: Limits = Limits()
    memory: MemoryConfig = MemoryConfig()
    tdd: TddMode = TddMode.ADVISORY
    waves: WaveLimits = WaveLimits()

    @property
    def plan_rules(self) -> PlanRules:
        return PlanRules(tdd=self.tdd, wave_attempts=self.waves.max_attempts)


def _describe(error: ValidationError, source: str) -> str:
    lines = [f"{source}: invalid workflow settings"]
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        lines.append(f"  {where}: {item['msg']}")
    return "\n".join(lines)


def parse_workflow_config(
    data: Mapping[str, Any] | None, source: str = "workflow"
) -> WorkflowConfig:
    """Validate ``data``; missing keys take the defaults, unknown keys are errors."""
    try:
        return WorkflowConfig.model_validate(dict(data or {}))
    except ValidationError as error:
        raise ConfigError(_describe(error, source)) from None
