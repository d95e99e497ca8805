"""What a task has spent on models: tokens, dollars and seconds, in total and by model.

``WorkflowState.spend`` holds it; :func:`add_usage` adds one model call's usage (pure).
The agents' per-call ``Usage`` (``workers.agents.llm.Usage``) fits :class:`UsageFigures`
as it is. The budgets themselves are checked by the agents; going over one is the
:class:`~workers.controller.outcomes.BudgetExceeded` outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from workers.controller.state import WorkflowState

_MODEL = ConfigDict(frozen=True, extra="ignore")


class UsageFigures(Protocol):
    """One model call's usage; ``workers.agents.llm.Usage`` has these attributes."""

    @property
    def input_tokens(self) -> int: ...

    @property
    def output_tokens(self) -> int: ...

    @property
    def cache_write_tokens(self) -> int: ...

    @property
    def cache_read_tokens(self) -> int: ...

    @property
    def cost_usd(self) -> float: ...


class ModelSpend(BaseModel):
    """Figures summed over model calls."""

    model_config = _MODEL

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        cached = self.cache_write_tokens + self.cache_read_tokens
        return self.input_tokens + self.output_tokens + cached

    def plus(self, usage: UsageFigures, seconds: float = 0.0) -> ModelSpend:
        return ModelSpend(**_added(self, usage, seconds))

    def describe(self) -> str:
        """``12,345 tokens (in 10,000, out 2,000, cache 345), $0.12 in 3 call(s)``."""
        cached = self.cache_write_tokens + self.cache_read_tokens
        parts = f"in {self.input_tokens:,}, out {self.output_tokens:,}, cache {cached:,}"
        time = f", {self.seconds:,.0f} s" if self.seconds else ""
        return (
            f"{self.total_tokens:,} tokens ({parts}), ${self.cost_usd:.2f}{time} "
            f"in {self.calls} call(s)"
        )


class Spend(ModelSpend):
    """The task's total, and the same figures per model (``by_model``)."""

    by_model: dict[str, ModelSpend] = Field(default_factory=dict)

    def summary(self) -> str:
        """One line for the status comment; empty when nothing was spent yet."""
        if not self.calls and not self.total_tokens and not self.cost_usd:
            return ""
        if len(self.by_model) < 2:
            return self.describe()
        models = "; ".join(
            f"{name}: {figures.total_tokens:,} tokens, ${figures.cost_usd:.2f}"
            for name, figures in sorted(self.by_model.items())
        )
        return f"{self.describe()} ({models})"


def _added(figures: ModelSpend, usage: UsageFigures, seconds: float) -> dict[str, int | float]:
    return {
        "input_tokens": figures.input_tokens + usage.input_tokens,
        "output_tokens": figures.output_tokens + usage.output_tokens,
        "cache_write_tokens": figures.cache_write_tokens + usage.cache_write_tokens,
        "cache_read_tokens": figures.cache_read_tokens + usage.cache_read_tokens,
        "cost_usd": figures.cost_usd + usage.cost_usd,
        "seconds": figures.seconds + seconds,
        "calls": figures.calls + 1,
    }


def add_usage(spend: Spend, usage: UsageFigures, *, model: str = "", seconds: float = 0.0) -> Spend:
    """``spend`` plus one model call; counted under ``model`` too when it is named."""
    by_model = dict(spend.by_model)
    if model:
        by_model[model] = by_model.get(model, ModelSpend()).plus(usage, seconds)
    return Spend(**_added(spend, usage, seconds), by_model=by_model)


def with_usage(
    state: WorkflowState, usage: UsageFigures, *, model: str = "", seconds: float = 0.0
) -> WorkflowState:
    """``state`` with one model call added to its spend (call it before ``step``)."""
    spend = add_usage(state.spend, usage, model=model, seconds=seconds)
    return state.model_copy(update={"spend": spend})
