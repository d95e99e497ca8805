"""What the recovery ladder remembers of a task (``WorkflowState.recovery``).

The anchor, the failure history, the budgets used (replans, doctor calls), what later
calls are told (a revised approach, a doctor's hint, a human's answer, a reduced scope),
which roles moved to their fallback route, and every ladder step taken (for the history,
the status comment, the dashboard and ``/metrics``). All of it has defaults, so a task
stored before the ladder existed loads unchanged (docs/design.md §9).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from workers.controller.anchor import Anchor, IssueIntent
from workers.controller.failures import Failure
from workers.controller.phases import Phase, Role
from workers.controller.recovery import DoctorCalls

MAX_FAILURES = 60  # failures kept (the newest): enough for every phase's iterations
NOTE_CHARS = 6000  # of a revised approach, a hint or an answer, as later prompts get it
_MODEL = ConfigDict(frozen=True, extra="ignore")


class RecoveryAction(StrEnum):
    """A ladder step, as history, the dashboard and ``agentium_recovery_total`` name it."""

    ESCALATE_MODEL = "escalate_model"
    REPLAN = "replan"
    REDUCE_SCOPE = "reduce_scope"
    BLOCKED_NEEDS_HUMAN = "blocked_needs_human"
    STOP = "stop"
    DOCTOR = "doctor"  # a diagnostic call (cheap or strong)
    RETRY_WITH_FIX = "retry_with_fix"
    ROLLBACK_PROVIDER = "rollback_provider"
    FATAL = "fatal"
    ANSWERED = "answered"  # a person's reply to the question resumed the task


class LadderStep(BaseModel):
    model_config = _MODEL

    action: RecoveryAction
    phase: Phase
    iteration: int
    round: int = 0
    detail: str = ""


class Note(BaseModel):
    """A text for later calls of a phase: from ``iteration`` on (``once``: only then)."""

    model_config = _MODEL

    phase: Phase
    round: int = 0
    iteration: int
    text: str = ""
    once: bool = False

    def applies(self, phase: Phase, round_: int, iteration: int) -> bool:
        if self.phase is not phase or self.round != round_:
            return False
        return iteration == self.iteration if self.once else iteration >= self.iteration


class Recovery(BaseModel):
    model_config = _MODEL

    intent: IssueIntent | None = None  # the issue when the task started
    anchor: Anchor | None = None  # set once, at PLAN ADVANCE
    failures: tuple[Failure, ...] = ()
    replans: dict[Phase, int] = Field(default_factory=dict)
    doctor: DoctorCalls = DoctorCalls()
    escalated: Phase | None = None  # ESCALATE_MODEL happened (once per task), in this phase
    fallback: tuple[Role, ...] = ()  # roles on their fallback route for the rest of the task
    approach: Note | None = None  # the replan's revised approach
    hint: Note | None = None  # the doctor's retry_with_fix hint
    answer: Note | None = None  # a person's answer to the question
    scope: Note | None = None  # REDUCE_SCOPE: the phase and round it applies to
    cuts: tuple[str, ...] = ()  # what the worker said it left out (AGENTIUM_SCOPE_CUT)
    questions: tuple[Note, ...] = ()  # the questions asked
    resume: Role | None = None  # the call to make again after an infrastructure doctor call
    resume_reask: bool = False
    effect_failures: int = 0  # failed pushes or GitHub calls in a row (docs/design.md §9)
    steps: tuple[LadderStep, ...] = ()
    budgets: str = ""  # the ladder's budgets as last used ("2 of 10 doctor calls, ...")

    def phase_failures(self, phase: Phase, round_: int) -> tuple[Failure, ...]:
        return tuple(f for f in self.failures if f.phase is phase and f.round == round_)

    def with_failure(self, failure: Failure) -> Recovery:
        kept = (*self.failures, failure)[-MAX_FAILURES:]
        return self.model_copy(update={"failures": kept})

    def asked(self, phase: Phase, round_: int) -> bool:
        return any(q.phase is phase and q.round == round_ for q in self.questions)

    def counts(self) -> dict[RecoveryAction, int]:
        found: dict[RecoveryAction, int] = {}
        for step in self.steps:
            found[step.action] = found.get(step.action, 0) + 1
        return found


def note(phase: Phase, round_: int, iteration: int, text: str, *, once: bool = False) -> Note:
    cut = text.strip()
    if len(cut) > NOTE_CHARS:
        cut = cut[:NOTE_CHARS] + "\n[... cut ...]"
    return Note(phase=phase, round=round_, iteration=iteration, text=cut, once=once)
