"""What models cost: one call's :class:`Usage`, and a task's :class:`Spend` over its calls.

There is one usage model in the bot. The adapters report a :class:`Usage` per call; the
agents' budget ledger (``spend.json`` in the task's state directory) and
``WorkflowState.spend`` are both a :class:`Spend`: the figures summed, the seconds spent in
agent runs, the number of calls, and the same per model. The budgets are checked by the
agents; going over one is the :class:`~workers.controller.outcomes.BudgetExceeded` outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from workers.controller.state import WorkflowState

_MODEL = ConfigDict(frozen=True, extra="ignore")


class Usage(BaseModel):
    """Tokens and dollars: of one model call, or summed over several."""

    model_config = _MODEL

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        cached = self.cache_write_tokens + self.cache_read_tokens
        return self.input_tokens + self.output_tokens + cached

    def __add__(self, other: Usage) -> Usage:
        return Usage(**_summed(self, other))


class Spend(Usage):
    """A task's spend: the figures, the seconds in agent runs, the calls; and per model."""

    seconds: float = 0.0
    calls: int = 0
    by_model: dict[str, Spend] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _flatten_old_ledger(cls, data: Any) -> Any:
        """Ledgers written before there was one usage model nest the figures in ``usage``."""
        if isinstance(data, dict) and isinstance(data.get("usage"), dict):
            return {**data["usage"], **{k: v for k, v in data.items() if k != "usage"}}
        return data

    def add(self, usage: Usage, *, model: str = "", seconds: float = 0.0, calls: int = 1) -> Spend:
        """This spend plus ``calls`` model calls' usage; counted under ``model`` when named."""
        by_model = dict(self.by_model)
        if model:
            mine = by_model.get(model, Spend())
            by_model[model] = mine._plus(usage, seconds, calls, {})
        return self._plus(usage, seconds, calls, by_model)

    def _plus(self, usage: Usage, seconds: float, calls: int, by_model: dict[str, Spend]) -> Spend:
        figures = _summed(self, usage)
        return Spend(
            **figures, seconds=self.seconds + seconds, calls=self.calls + calls, by_model=by_model
        )

    def describe(self) -> str:
        """``12,345 tokens (in 10,000, out 2,000, cache 345), $0.12 in 3 call(s)``."""
        cached = self.cache_write_tokens + self.cache_read_tokens
        parts = f"in {self.input_tokens:,}, out {self.output_tokens:,}, cache {cached:,}"
        time = f", {self.seconds:,.0f} s" if self.seconds else ""
        return (
            f"{self.total_tokens:,} tokens ({parts}), ${self.cost_usd:.2f}{time} "
            f"in {self.calls} call(s)"
        )

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


def _summed(one: Usage, other: Usage) -> dict[str, Any]:
    return {
        "input_tokens": one.input_tokens + other.input_tokens,
        "output_tokens": one.output_tokens + other.output_tokens,
        "cache_write_tokens": one.cache_write_tokens + other.cache_write_tokens,
        "cache_read_tokens": one.cache_read_tokens + other.cache_read_tokens,
        "cost_usd": one.cost_usd + other.cost_usd,
    }


def add_usage(spend: Spend, usage: Usage, *, model: str = "", seconds: float = 0.0) -> Spend:
    """``spend`` plus one model call; counted under ``model`` too when it is named."""
    return spend.add(usage, model=model, seconds=seconds)


def with_usage(
    state: WorkflowState, usage: Usage, *, model: str = "", seconds: float = 0.0
) -> WorkflowState:
    """``state`` with one model call added to its spend (call it before ``step``)."""
    return state.model_copy(
        update={"spend": add_usage(state.spend, usage, model=model, seconds=seconds)}
    )
