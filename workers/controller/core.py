"""What every move of the controller shares: the transition, its context, the history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from workers.controller import memory, signals
from workers.controller.effects import CommentKind, Effect, PostComment, Target
from workers.controller.limits import Limits, PlanRules
from workers.controller.memory import MemoryEntry, MemoryType
from workers.controller.phases import Role, Verdict
from workers.controller.state import Feedback, HistoryEntry, WorkflowState
from workers.controller.wavestate import WaveEvent

EXCERPT_CHARS = 200


@dataclass(frozen=True)
class Transition:
    state: WorkflowState
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Context:
    limits: Limits
    now: datetime
    rules: PlanRules = field(default_factory=PlanRules)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return excerpt(line, 80)


def record(
    state: WorkflowState,
    ctx: Context,
    role: Role,
    summary: str,
    *,
    verdict: Verdict | None = None,
    detail: str = "",
    event: WaveEvent | None = None,
    wave: int = 0,
    subtask: str = "",
) -> WorkflowState:
    """Append a history entry for the current phase and iteration."""
    entry = HistoryEntry(
        phase=state.phase,
        iteration=state.iteration,
        of=ctx.limits.max_iterations(state.path, state.phase) if not state.phase.is_terminal else 0,
        role=role,
        verdict=verdict,
        summary=summary,
        excerpt=excerpt(detail),
        at=ctx.now,
        round=state.round,
        event=event,
        wave=wave,
        subtask=subtask,
    )
    return with_entry(state, entry)


HISTORY_KEPT = 300  # entries kept with the task: far more than any status comment shows


def with_entry(state: WorkflowState, entry: HistoryEntry) -> WorkflowState:
    """``state`` with ``entry`` appended; the oldest entries go beyond ``HISTORY_KEPT``
    (counted in ``history_dropped``, so ``history_count`` keeps growing)."""
    history = (*state.history, entry)
    dropped = max(0, len(history) - HISTORY_KEPT)
    return state.model_copy(
        update={
            "history": history[dropped:],
            "history_dropped": state.history_dropped + dropped,
        }
    )


def status(state: WorkflowState | None = None) -> PostComment:
    """Refresh the status comment; ``data["spend"]`` is the spend summary ("" if none)."""
    spend = state.spend.summary() if state is not None else ""
    return PostComment(Target.ISSUE, CommentKind.STATUS, {"spend": spend})


def note_feedback(state: WorkflowState, feedback: Feedback) -> WorkflowState:
    """Remember an ITERATE's feedback (EVAL_FEEDBACK) for the next iterations."""
    text = feedback.judge or first_line(feedback.review) or "iterate"
    entry = MemoryEntry(
        type=MemoryType.EVAL_FEEDBACK, text=text, phase=state.phase, iteration=state.iteration
    )
    return state.model_copy(update={"memory": memory.add(state.memory, [entry])})


def remember(state: WorkflowState, text: str) -> WorkflowState:
    """The ``AGENTIUM_MEMORY`` lines of an agent's answer, added to the task's memory."""
    entries = [
        MemoryEntry(type=s.type, text=s.text, phase=state.phase, iteration=state.iteration)
        for s in signals.parse_memory(text)
    ]
    return state.model_copy(update={"memory": memory.add(state.memory, entries)})
