"""The schema of a repository's ``.github/agentium.yml``: every key optional, unknown keys errors.

Values are checked strictly (``PLAN: "3"`` or ``PLAN: yes`` is not an integer). A key left out,
or set to ``null``, keeps the bot's default.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

MAX_ITERATIONS = 20
MAX_NO_SIGNAL = 20
MAX_LABEL_CHARS = 50  # GitHub's limit for a label name
MAX_COMMAND_CHARS = 2000
MAX_WAVE_ATTEMPTS = 5

_STRICT = ConfigDict(frozen=True, extra="forbid", strict=True)


def _between(low: int, high: int) -> AfterValidator:
    def check(value: int) -> int:
        if not low <= value <= high:
            raise PydanticCustomError(
                "out_of_range", "must be between {low} and {high}", {"low": low, "high": high}
            )
        return value

    return AfterValidator(check)


def _positive(value: float) -> float:
    if not value > 0 or value == float("inf"):
        raise PydanticCustomError("not_positive", "must be a positive number", {})
    return value


def _text(limit: int) -> AfterValidator:
    def check(value: str) -> str:
        if not value.strip():
            raise PydanticCustomError("blank", "must not be empty", {})
        if len(value) > limit:
            raise PydanticCustomError(
                "too_long", "must be at most {limit} characters", {"limit": limit}
            )
        return value.strip()

    return AfterValidator(check)


Iterations = Annotated[int, _between(1, MAX_ITERATIONS)]
NoSignalLimit = Annotated[int, _between(0, MAX_NO_SIGNAL)]
PositiveCount = Annotated[int, AfterValidator(_positive)]
PositiveAmount = Annotated[float, AfterValidator(_positive)]
Label = Annotated[str, _text(MAX_LABEL_CHARS)]
Command = Annotated[str, _text(MAX_COMMAND_CHARS)]


class PhaseLimitsOverride(BaseModel):
    """Iterations per phase (one iteration = worker, reviewer, judge), each 1..20."""

    model_config = _STRICT

    PLAN: Iterations | None = Field(default=None, description="Iterations of the PLAN phase.")
    IMPLEMENT: Iterations | None = Field(
        default=None, description="Iterations of the IMPLEMENT phase."
    )
    DOCS: Iterations | None = Field(default=None, description="Iterations of the DOCS phase.")


class LimitsOverride(BaseModel):
    """The ``limits`` of ``config/workflow.yml``, any part of it."""

    model_config = _STRICT

    SIMPLE: PhaseLimitsOverride | None = Field(
        default=None, description="Limits on the SIMPLE path (chosen by the complexity assessor)."
    )
    COMPLEX: PhaseLimitsOverride | None = Field(
        default=None, description="Limits on the COMPLEX path (also before a path is chosen)."
    )
    eval_no_signal_limit: NoSignalLimit | None = Field(
        default=None,
        description="Judgments without a verdict that count as ITERATE (0..20; 0 = strict).",
    )


class WavesOverride(BaseModel):
    """The ``waves`` of ``config/workflow.yml``."""

    model_config = _STRICT

    max_attempts: Annotated[int, _between(1, MAX_WAVE_ATTEMPTS)] | None = Field(
        default=None,
        description=(
            "Attempts per wave of a COMPLEX plan (1..5): the wave's judge saying ITERATE, or "
            "overlapping changes, retry the wave from its starting commit."
        ),
    )


class BudgetsOverride(BaseModel):
    """The per-task ``budget`` of ``config/agents.yml``, any part of it; all positive."""

    model_config = _STRICT

    max_tokens: PositiveCount | None = Field(
        default=None, description="Model tokens (input + output) one task may use."
    )
    max_dollars: PositiveAmount | None = Field(
        default=None, description="Model spend in US dollars one task may use."
    )
    max_seconds: PositiveAmount | None = Field(
        default=None, description="Seconds spent inside agent runs by one task."
    )


class RepoConfig(BaseModel):
    """The whole of ``.github/agentium.yml``. Every key is optional."""

    model_config = _STRICT

    trigger_label: Label | None = Field(
        default=None, description="The label that starts a task (1..50 characters)."
    )
    limits: LimitsOverride | None = Field(
        default=None, description="Iteration limits per path and phase, merged over the defaults."
    )
    test_command: Command | None = Field(
        default=None,
        description="Shell command that runs the tests; null or absent = detect it.",
    )
    setup_command: Command | None = Field(
        default=None,
        description=(
            "Shell command that installs the dependencies before the agents run (in the "
            "sandbox, in a virtual environment, without secrets); null or absent = detect it."
        ),
    )
    setup_network: bool | None = Field(
        default=None,
        description=(
            "Whether the setup command has the network (only it: the agents' commands never do)."
        ),
    )
    routing: dict[str, Any] | None = Field(
        default=None,
        description=(
            "Routing overrides: routing key -> {adapter, model}, laid over config/routing.yml "
            "(validated by workers.controller.routing)."
        ),
    )
    budgets: BudgetsOverride | None = Field(
        default=None, description="Per-task budgets, merged over config/agents.yml's budget."
    )
    tdd: Literal["advisory", "required"] | None = Field(
        default=None,
        description=(
            "The plan's TDD rule (every `impl` task has a `test` task in its dependency chain): "
            "`advisory` shows a breach to the plan reviewer and judge, `required` sends the "
            "plan back."
        ),
    )
    waves: WavesOverride | None = Field(
        default=None, description="How the waves of a COMPLEX plan run (docs/design.md §8)."
    )


def allowed_keys(loc: tuple[str, ...]) -> list[str]:
    """The keys the schema allows in the mapping at ``loc`` (empty when it is not a model)."""
    model: type[BaseModel] | None = RepoConfig
    for part in loc:
        field = model.model_fields.get(part) if model is not None else None
        model = _model_of(field.annotation) if field is not None else None
    return list(model.model_fields) if model is not None else []


def _model_of(annotation: Any) -> type[BaseModel] | None:
    for candidate in getattr(annotation, "__args__", (annotation,)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None
