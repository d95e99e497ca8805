"""The task's memory: entries tagged with phase and iteration, and the rules that keep it.

- ITERATE keeps everything (and the controller adds the judge's feedback as EVAL_FEEDBACK).
- ADVANCE clears the finished phase's entries except KEY_FACTs and adds a PHASE_RESULT.
- STEP_DONE resolves the STEP_PENDING with the same text.
- A prompt gets what fits a character budget, chosen by type priority (newest first within a
  type), never oldest-first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from workers.controller.phases import Phase


class MemoryType(StrEnum):
    KEY_FACT = "KEY_FACT"
    DECISION = "DECISION"
    STEP_DONE = "STEP_DONE"
    STEP_PENDING = "STEP_PENDING"
    FILE_MODIFIED = "FILE_MODIFIED"
    ERROR = "ERROR"
    EVAL_FEEDBACK = "EVAL_FEEDBACK"
    PHASE_RESULT = "PHASE_RESULT"


class MemoryEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: MemoryType
    text: str
    phase: Phase
    iteration: int

    def render(self) -> str:
        return f"- [{self.phase} #{self.iteration}] {self.type}: {self.text}"


Memory = tuple[MemoryEntry, ...]


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _resolves(done: MemoryEntry, entry: MemoryEntry) -> bool:
    return entry.type is MemoryType.STEP_PENDING and _norm(entry.text) == _norm(done.text)


def _is_duplicate(memory: Memory, entry: MemoryEntry) -> bool:
    return any(e.type is entry.type and _norm(e.text) == _norm(entry.text) for e in memory)


MAX_ENTRIES = 200  # kept with the task; a prompt shows what fits its budget
MAX_TEXT_CHARS = 600  # one entry's text; longer ones are cut


def add(memory: Memory, entries: Iterable[MemoryEntry]) -> Memory:
    """Append ``entries``, skipping duplicates; a STEP_DONE removes its STEP_PENDING.

    What is kept is bounded: an entry's text is cut at ``MAX_TEXT_CHARS`` and beyond
    ``MAX_ENTRIES`` the oldest entries go, KEY_FACTs last."""
    result = memory
    for entry in entries:
        entry = _cut(entry)
        if _is_duplicate(result, entry):
            continue
        if entry.type is MemoryType.STEP_DONE:
            result = tuple(e for e in result if not _resolves(entry, e))
        result = (*result, entry)
    return _bounded(result)


def _cut(entry: MemoryEntry) -> MemoryEntry:
    if len(entry.text) <= MAX_TEXT_CHARS:
        return entry
    return entry.model_copy(update={"text": entry.text[: MAX_TEXT_CHARS - 1] + "…"})


def _bounded(memory: Memory) -> Memory:
    excess = len(memory) - MAX_ENTRIES
    if excess <= 0:
        return memory
    others = [i for i, e in enumerate(memory) if e.type is not MemoryType.KEY_FACT]
    facts = [i for i, e in enumerate(memory) if e.type is MemoryType.KEY_FACT]
    dropped = set((others + facts)[:excess])
    return tuple(e for i, e in enumerate(memory) if i not in dropped)


def on_advance(memory: Memory, phase: Phase, iteration: int, summary: str) -> Memory:
    """Clear ``phase``'s entries except KEY_FACTs, then record the phase's PHASE_RESULT."""
    kept = tuple(e for e in memory if e.phase is not phase or e.type is MemoryType.KEY_FACT)
    result = MemoryEntry(
        type=MemoryType.PHASE_RESULT, text=summary, phase=phase, iteration=iteration
    )
    return (*kept, result)


def render(memory: Memory, budget_chars: int, priorities: Sequence[MemoryType]) -> str:
    """The entries that fit ``budget_chars``, chosen by type priority, shown oldest first."""
    rank = {t: i for i, t in enumerate(priorities)}
    order = sorted(
        range(len(memory)),
        key=lambda i: (rank.get(memory[i].type, len(rank)), -i),
    )
    chosen: list[int] = []
    used = 0
    for index in order:
        size = len(memory[index].render()) + 1
        if used + size <= budget_chars:
            chosen.append(index)
            used += size
    return "\n".join(memory[i].render() for i in sorted(chosen))
