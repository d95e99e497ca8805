"""What the recovery ladder tells an agent call, carried by its ``RunAgent`` effect.

Built from the state alone (so a re-enqueued call gets the same), for the call the task
waits for (docs/design.md §9):

| role       | gets                                                                         |
|------------|------------------------------------------------------------------------------|
| worker     | the revised approach (after a replan), the doctor's hint (its next call      |
|            | only), a person's answer, the scope reduction, the stronger model (after     |
|            | ESCALATE_MODEL, for the rest of that phase)                                  |
| judge      | the anchor                                                                   |
| doctor     | the anchor, the phase's failure history, cheap or strong model, its budgets  |
| replanner  | the anchor, the phase's failure history                                      |
| any role   | its fallback route, once the doctor rolled its provider back                 |
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.controller.anchor import Anchor
from workers.controller.failures import Failure
from workers.controller.ladder_state import Note
from workers.controller.limits import Limits
from workers.controller.phases import Phase, Role
from workers.controller.state import Awaiting, WorkflowState


@dataclass(frozen=True)
class Guidance:
    anchor: Anchor | None = None
    failures: tuple[Failure, ...] = ()
    approach: str = ""
    hint: str = ""
    answer: str = ""
    reduce_scope: bool = False
    escalate: bool = False
    fallback: bool = False
    strong: bool = False  # the doctor's second call, on the strong model
    budgets: str = ""  # the doctor's budgets, as used so far

    @property
    def empty(self) -> bool:
        return self == Guidance()


def guidance_for(state: WorkflowState, awaiting: Awaiting, limits: Limits) -> Guidance | None:
    """The guidance for the call ``awaiting`` names; None when there is nothing to say."""
    recovery, role = state.recovery, awaiting.role
    where = (state.phase, state.round, state.iteration)
    fallback = role in recovery.fallback
    if role is Role.WORKER:
        found = Guidance(
            approach=_text(recovery.approach, where),
            hint=_text(recovery.hint, where),
            answer=_text(recovery.answer, where),
            reduce_scope=_on(recovery.scope, where),
            escalate=recovery.escalated is state.phase,
            fallback=fallback,
        )
    elif role is Role.JUDGE:
        found = Guidance(anchor=recovery.anchor, fallback=fallback)
    elif role in (Role.DOCTOR, Role.REPLANNER):
        found = Guidance(
            anchor=recovery.anchor,
            failures=recovery.phase_failures(state.phase, state.round),
            fallback=fallback,
            strong=role is Role.DOCTOR and awaiting.reask,
            budgets=recovery.doctor.describe(limits.recovery.doctor) if role is Role.DOCTOR else "",
        )
    else:
        found = Guidance(fallback=fallback)
    return None if found.empty else found


def _on(note: Note | None, where: tuple[Phase, int, int]) -> bool:
    return note is not None and note.applies(*where)


def _text(note: Note | None, where: tuple[Phase, int, int]) -> str:
    return note.text if note is not None and note.applies(*where) else ""
