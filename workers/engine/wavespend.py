"""What a wave's subtasks spent, carried from their private ledgers into the task's.

A subtask works with a private copy of the task's state directory, whose ledger starts at
the task's spend (so the budget is checked against it); what the subtask added is the
difference, kept with its result and added to the task's ledger by the join, once.
"""

from __future__ import annotations

from pathlib import Path

from workers.agents.atomic import write_atomically
from workers.agents.budget import load_ledger
from workers.controller.spend import Spend, Usage

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens")


def _usage(after: Spend, before: Spend, sign: int = -1) -> Usage:
    values: dict[str, float] = {
        f: getattr(after, f) + sign * getattr(before, f) for f in USAGE_FIELDS
    }
    values["cost_usd"] = after.cost_usd + sign * before.cost_usd
    return Usage.model_validate(values)


def difference(after: Spend, before: Spend) -> Spend:
    """``after`` less ``before`` (a ledger that only grew), per model."""
    found = Spend()
    for name, figures in sorted(after.by_model.items()):
        earlier = before.by_model.get(name, Spend())
        found = found.add(
            _usage(figures, earlier),
            model=name,
            seconds=figures.seconds - earlier.seconds,
            calls=figures.calls - earlier.calls,
        )
    return found


def plus(spend: Spend, more: Spend) -> Spend:
    """``spend`` with ``more`` added, per model."""
    for name, figures in sorted(more.by_model.items()):
        spend = spend.add(
            _usage(figures, Spend(), +1), model=name, seconds=figures.seconds, calls=figures.calls
        )
    return spend


def add_to_ledger(ledger: Path, marker: Path, more: Spend) -> bool:
    """Add ``more`` to the ledger file unless ``marker`` says it was; both files live in the
    task's state directory, saved together, so a join run twice counts once."""
    if marker.exists():
        return False
    total = plus(load_ledger(ledger) or Spend(), more)
    write_atomically(ledger, total.model_dump_json())
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("added\n", encoding="utf-8")
    return True
