"""Helpers for the controller tests: a fixed clock and a driver."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypeVar

from workers.controller.effects import Effect, RunAgent
from workers.controller.limits import Limits
from workers.controller.moves import Transition
from workers.controller.outcomes import DoctorDone, Outcome, Start, SubtaskResult, WaveJoined
from workers.controller.phases import Role
from workers.controller.state import WorkflowState
from workers.controller.transitions import step

NOW = datetime(2025, 1, 1, tzinfo=UTC)
# The doctor's answer for tests about other rules: two failed iterations of a phase ask it.
HINT = DoctorDone("Looked at the failures.\nAGENTIUM_DOCTOR: retry_with_fix read the review again")

E = TypeVar("E")


def drive(
    outcomes: Sequence[Outcome],
    limits: Limits | None = None,
    state: WorkflowState | None = None,
    *,
    answer_doctor: DoctorDone | None = None,
) -> Transition:
    """Start a task (unless ``state`` is given) and feed ``outcomes``; the last transition.

    With ``answer_doctor``, every call of the recovery ladder's doctor gets that answer
    (for tests of other rules, whose failed iterations ask it)."""
    limits = limits or Limits()
    transition = Transition(state) if state else step(WorkflowState(), Start(), limits, now=NOW)
    for outcome in outcomes:
        transition = step(transition.state, outcome, limits, now=NOW)
        while answer_doctor is not None and _asks_doctor(transition):
            transition = step(transition.state, answer_doctor, limits, now=NOW)
    return transition


def _asks_doctor(transition: Transition) -> bool:
    return any(isinstance(e, RunAgent) and e.role is Role.DOCTOR for e in transition.effects)


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
