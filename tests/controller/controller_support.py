"""Helpers for the controller tests: a fixed clock and a driver."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypeVar

from workers.controller.effects import Effect
from workers.controller.limits import Limits
from workers.controller.moves import Transition
from workers.controller.outcomes import Outcome, Start, SubtaskResult, WaveJoined
from workers.controller.state import WorkflowState
from workers.controller.transitions import step

NOW = datetime(2025, 1, 1, tzinfo=UTC)

E = TypeVar("E")


def drive(
    outcomes: Sequence[Outcome],
    limits: Limits | None = None,
    state: WorkflowState | None = None,
) -> Transition:
    """Start a task (unless ``state`` is given) and feed ``outcomes``; the last transition."""
    limits = limits or Limits()
    transition = Transition(state) if state else step(WorkflowState(), Start(), limits, now=NOW)
    for outcome in outcomes:
        transition = step(transition.state, outcome, limits, now=NOW)
    return transition


def of_type(effects: Sequence[Effect], kind: type[E]) -> list[E]:
    return [e for e in effects if isinstance(e, kind)]


def joined(
    wave: int, *ids: str, attempt: int = 1, commit: str | None = None, conflict: str = ""
) -> WaveJoined:
    """Every subtask of ``wave`` done; joined into ``commit`` (``c<wave>-<attempt>`` unless
    given; "" = no changes) or not at all (``conflict``)."""
    made = f"c{wave}-{attempt}" if commit is None else commit
    results = tuple(SubtaskResult(i, f"did {i}") for i in ids)
    return WaveJoined(wave, attempt, results, f"s{wave}", "" if conflict else made, conflict)
