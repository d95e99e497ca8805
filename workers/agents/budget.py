"""Per-task budgets: tokens, dollars and seconds spent in agent runs.

The spend is a :class:`~workers.controller.spend.Spend` kept in ``spend.json`` in the
task's state directory and written after every model call, so it survives worker restarts.
Seconds count time inside agent runs only: a task paused for a day does not use up its
budget while it waits.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from workers.agents.atomic import write_atomically
from workers.agents.settings import BudgetSettings
from workers.controller.spend import Spend, Usage


class OutOfBudget(Exception):
    """A task went over one of its budgets; the message carries the figures."""


def load_ledger(path: Path) -> Spend | None:
    """The spend recorded in ``path``; None when there is none (or it cannot be read)."""
    try:
        return Spend.model_validate_json(path.read_bytes())
    except (FileNotFoundError, ValidationError):
        return None


class TaskBudget:
    """Checks and records one task's spend against its limits."""

    def __init__(self, settings: BudgetSettings, ledger: Path) -> None:
        self.settings = settings
        self.ledger = ledger
        self.spend = load_ledger(ledger) or Spend()

    def _save(self) -> None:
        write_atomically(self.ledger, self.spend.model_dump_json())

    def over(self) -> list[str]:
        """The budgets the task has used up, each with its figures."""
        limits, spent = self.settings, self.spend
        found = []
        if spent.total_tokens >= limits.max_tokens:
            found.append(f"tokens {spent.total_tokens:,} of {limits.max_tokens:,}")
        if spent.cost_usd >= limits.max_dollars:
            found.append(f"dollars ${spent.cost_usd:.2f} of ${limits.max_dollars:.2f}")
        if spent.seconds >= limits.max_seconds:
            found.append(f"time {spent.seconds:,.0f} s of {limits.max_seconds:,.0f} s")
        return found

    def check(self) -> None:
        """Raise :class:`OutOfBudget` when a budget is used up (before every model call)."""
        over = self.over()
        if over:
            raise OutOfBudget(f"budget exceeded: {'; '.join(over)} (spent {self.spend.describe()})")

    def charge(self, usage: Usage, model: str = "") -> None:
        self.spend = self.spend.add(usage, model=model)
        self._save()

    def add_time(self, seconds: float, model: str = "") -> None:
        self.spend = self.spend.add(Usage(), model=model, seconds=seconds, calls=0)
        self._save()
