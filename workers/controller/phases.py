"""String enums shared by the controller: phases, paths, verdicts, roles."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    PLAN = "PLAN"
    IMPLEMENT = "IMPLEMENT"
    DOCS = "DOCS"
    COMPLETE = "COMPLETE"
    BLOCKED = "BLOCKED"
    NOTHING_TO_DO = "NOTHING_TO_DO"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_PHASES


WORK_PHASES: tuple[Phase, ...] = (Phase.PLAN, Phase.IMPLEMENT, Phase.DOCS)
TERMINAL_PHASES = frozenset({Phase.COMPLETE, Phase.BLOCKED, Phase.NOTHING_TO_DO})


def next_phase(phase: Phase) -> Phase:
    """The phase an ADVANCE leads to: PLAN -> IMPLEMENT -> DOCS -> COMPLETE."""
    order = (*WORK_PHASES, Phase.COMPLETE)
    return order[order.index(phase) + 1]


class Path(StrEnum):
    SIMPLE = "SIMPLE"
    COMPLEX = "COMPLEX"


class Verdict(StrEnum):
    ADVANCE = "ADVANCE"
    ITERATE = "ITERATE"
    BLOCKED = "BLOCKED"
    SIMPLE = "SIMPLE"
    COMPLEX = "COMPLEX"


JUDGE_VERDICTS: tuple[Verdict, ...] = (Verdict.ADVANCE, Verdict.ITERATE, Verdict.BLOCKED)
ASSESSOR_VERDICTS: tuple[Verdict, ...] = (Verdict.SIMPLE, Verdict.COMPLEX)


class Role(StrEnum):
    WORKER = "WORKER"
    ASSESSOR = "ASSESSOR"
    REVIEWER = "REVIEWER"
    JUDGE = "JUDGE"
    CONTROLLER = "CONTROLLER"
    HUMAN = "HUMAN"
    DOCTOR = "DOCTOR"  # the recovery ladder's diagnostic call
    REPLANNER = "REPLANNER"  # the recovery ladder's revision of a phase's approach


AGENT_ROLES = frozenset(
    {Role.WORKER, Role.ASSESSOR, Role.REVIEWER, Role.JUDGE, Role.DOCTOR, Role.REPLANNER}
)


class OverrideRule(StrEnum):
    """Why the controller advanced without the judge's ADVANCE (each one means NOMERGE)."""

    MAX_ITERATIONS = "max_iterations"
    NO_SIGNAL_LIMIT = "eval_no_signal_limit"
    DOCS_BLOCKED = "docs_non_blocking"
    DOCS_AGENT_FAILED = "docs_agent_failed"
    QUALITY_GATE = "quality_gate"  # ADVANCE on the last iteration with tests the change broke
    SCOPE_REDUCED = "reduce_scope"  # the recovery ladder cut the scope (docs/design.md §9)
