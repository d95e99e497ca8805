"""Per-task budgets: tokens, dollars and seconds spent in agent runs.

The spend is kept in ``spend.json`` in the task's state directory and written after every
model call, so it survives worker restarts. Seconds count time inside agent runs only: a
task paused for a day does not use up its budget while it waits.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from workers.agents.llm import Usage
from workers.agents.settings import BudgetSettings


class BudgetExceeded(Exception):
    """A task went over one of its budgets; the message carries the figures."""


class Spend(BaseModel):
    model_config = ConfigDict(frozen=True)

    usage: Usage = Usage()
    seconds: float = 0.0
    calls: int = 0

    def describe(self) -> str:
        return (
            f"{self.usage.total_tokens:,} tokens, ${self.usage.cost_usd:.2f}, "
            f"{self.seconds:,.0f} s in {self.calls} model call(s)"
        )


class TaskBudget:
    """Checks and records one task's spend against its limits."""

    def __init__(self, settings: BudgetSettings, ledger: Path) -> None:
        self.settings = settings
        self.ledger = ledger
        self.spend = self._load()

    def _load(self) -> Spend:
        try:
            return Spend.model_validate_json(self.ledger.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Spend()
        except ValidationError:
            return Spend()

    def _save(self) -> None:
        self.ledger.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.ledger.with_suffix(".tmp")
        temporary.write_text(self.spend.model_dump_json(), encoding="utf-8")
        temporary.replace(self.ledger)

    def over(self) -> list[str]:
        """The budgets the task has used up, each with its figures."""
        limits, spent = self.settings, self.spend
        found = []
        if spent.usage.total_tokens >= limits.max_tokens:
            found.append(f"tokens {spent.usage.total_tokens:,} of {limits.max_tokens:,}")
        if spent.usage.cost_usd >= limits.max_dollars:
            found.append(f"dollars ${spent.usage.cost_usd:.2f} of ${limits.max_dollars:.2f}")
        if spent.seconds >= limits.max_seconds:
            found.append(f"time {spent.seconds:,.0f} s of {limits.max_seconds:,.0f} s")
        return found

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` when a budget is used up (before every model call)."""
        over = self.over()
        if over:
            raise BudgetExceeded(
                f"budget exceeded: {'; '.join(over)} (spent {self.spend.describe()})"
            )

    def charge(self, usage: Usage) -> None:
        self.spend = self.spend.model_copy(
            update={"usage": self.spend.usage + usage, "calls": self.spend.calls + 1}
        )
        self._save()

    def add_time(self, seconds: float) -> None:
        self.spend = self.spend.model_copy(update={"seconds": self.spend.seconds + seconds})
        self._save()
