"""A wave's subtasks answered by scenario steps, joined as the engine would join them.

The engine runs a wave's subtasks at once and joins their changes when the last one ends;
a scenario answers them one ``subtask`` step each, in any order, and the join happens at
the step that answers the last. A step may say its subtask could not be run (``fail``),
that it changed nothing (``changes: false``) or that its changes overlap another's
(``conflict``: the join then fails with that text).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workers.controller.effects import RunWave
from workers.controller.outcomes import SubtaskResult, WaveJoined
from workers.offline.scenario import ScenarioError, ScriptStep


def start_commit(wave: int) -> str:
    return f"wave{wave}-start"


def wave_commit(wave: int, attempt: int) -> str:
    return f"wave{wave}-try{attempt}"


@dataclass
class WaveAnswers:
    """The answers so far to the wave the controller waits for."""

    source: str
    answers: dict[str, ScriptStep] = field(default_factory=dict)
    key: tuple[int, int] = (0, 0)

    def add(self, item: ScriptStep, wave: RunWave) -> WaveJoined | None:
        """Record ``item``; the join once every subtask of ``wave`` is answered."""
        pointer = wave.wave
        where = f"{self.source}:{item.line}"
        if (pointer.number, pointer.attempt) != self.key:
            self.answers, self.key = {}, (pointer.number, pointer.attempt)
        if item.subtask not in pointer.subtasks:
            names = ", ".join(pointer.subtasks)
            raise ScenarioError(
                f"{where}: wave {pointer.number} runs subtasks {names}, not {item.subtask!r}"
            )
        if item.subtask in self.answers:
            raise ScenarioError(f"{where}: subtask {item.subtask} is already answered")
        self.answers[item.subtask] = item
        if len(self.answers) < len(pointer.subtasks):
            return None
        return self._join(wave)

    def _join(self, wave: RunWave) -> WaveJoined:
        pointer = wave.wave
        steps = [self.answers[i] for i in pointer.subtasks]
        self.answers = {}
        results = tuple(SubtaskResult(s.subtask, s.text or "", s.error) for s in steps)
        conflict = "\n".join(s.conflict for s in steps if s.conflict)
        changed = any(s.commits is not False for s in steps if not s.error)
        commit = wave_commit(pointer.number, pointer.attempt) if changed else ""
        return WaveJoined(
            pointer.number,
            pointer.attempt,
            results,
            start_commit=start_commit(pointer.number),
            commit="" if conflict else commit,
            conflict=conflict,
        )

    def pending(self, wave: RunWave) -> list[str]:
        """The wave's subtasks still unanswered."""
        return [i for i in wave.wave.subtasks if i not in self.answers]
