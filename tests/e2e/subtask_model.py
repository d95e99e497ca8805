"""The scripted model's answers to a wave's subtasks, which arrive at once and in any order.

A subtask's worker is recognised by its briefing (``# Wave N of M...: subtask X``) and
answered by the scenario's ``subtask`` step with that id, taken from the run of subtask
steps at the head of the script. A step that changes files first asks for a
``write_file`` (``WAVE_<id>.md``; when a step of the same wave attempt declares a
``conflict``, every subtask of that attempt writes ``AGENTIUM_CONFLICT.md`` instead, so
their changes really overlap at the join), then gives its report; ``fail`` answers with a
non-retryable error. Every subtask's final answer can be held ``delay_s`` (a slow model,
without holding up the others); each request is recorded with its arrival time, so a test
can tell which subtasks were in flight at the same time. A subtask asked again (its worker
died and another runs it) gets the same answer again (``repeats`` counts them).
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass, field, replace

from tests.fakes.anthropic import Recorded, Reply, bad_request, text, tool_use
from workers.offline.scenario import ScriptStep

SUBTASK = re.compile(r"^# Wave (\d+) of \d+(?:, attempt (\d+) of \d+)?: subtask (\S+)")
SIBLINGS = re.compile(r"^(\d+) subtask\(s\) in this wave", re.MULTILINE)


def subtask_of(request: Recorded) -> tuple[int, int, str] | None:
    """(wave, attempt, subtask id) of a subtask worker's request, else None."""
    messages = request.json.get("messages", [])
    content = messages[0].get("content") if messages else None
    if not isinstance(content, list) or len(content) < 2:
        return None
    found = SUBTASK.match(content[1].get("text", ""))
    if found is None:
        return None
    return int(found[1]), int(found[2] or 1), found[3]


@dataclass(frozen=True)
class Flight:
    """One subtask's model call: when it arrived and when its answer left."""

    wave: int
    attempt: int
    subtask: str
    arrived: float
    answered: float


@dataclass
class SubtaskAnswers:
    delay_s: float = 0.0
    flights: list[Flight] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    in_flight: dict[str, ScriptStep] = field(default_factory=dict)
    answered: dict[tuple[int, int, str], ScriptStep] = field(default_factory=dict)
    conflicted: dict[tuple[int, int], bool] = field(default_factory=dict)
    repeats: int = 0

    def answer(self, steps: deque[ScriptStep], request: Recorded, final: bool) -> Reply:
        found = subtask_of(request)
        assert found is not None
        wave, attempt, subtask = found
        arrived = time.time()
        if (wave, attempt) not in self.conflicted:
            found_siblings = SIBLINGS.search(request.json["messages"][0]["content"][1]["text"])
            group = list(steps)[: int(found_siblings[1]) if found_siblings else 1]
            self.conflicted[(wave, attempt)] = any(
                s.kind == "subtask" and s.conflict for s in group
            )
        step = self.in_flight.pop(subtask, None) if final else self._take(steps, subtask)
        if step is None and (wave, attempt, subtask) in self.answered:
            step, self.repeats = self.answered[(wave, attempt, subtask)], self.repeats + 1
        if step is None:
            self.errors.append(f"subtask {subtask}: no step for it at the head of the script")
            return text("(script mismatch)")
        self.answered[(wave, attempt, subtask)] = step
        if step.error:
            return bad_request()
        delay = self.delay_s if final or step.commits is False else 0.0
        self.flights.append(Flight(wave, attempt, subtask, arrived, arrived + delay))
        if final or step.commits is False:
            return replace(text(step.text or "done"), delay_s=delay)
        self.in_flight[subtask] = step
        path = "AGENTIUM_CONFLICT.md" if self.conflicted[(wave, attempt)] else f"WAVE_{subtask}.md"
        content = f"{step.text}\n{step.conflict}\n"
        return tool_use("write_file", {"path": path, "content": content})

    @staticmethod
    def _take(steps: deque[ScriptStep], subtask: str) -> ScriptStep | None:
        for index, step in enumerate(steps):
            if step.kind != "subtask":
                return None
            if step.subtask == subtask:
                del steps[index]
                return step
        return None

    def overlapping(self, wave: int, attempt: int = 1) -> bool:
        """Whether every subtask of that attempt of the wave had a call in flight while
        another subtask's was."""
        mine = [f for f in self.flights if (f.wave, f.attempt) == (wave, attempt)]
        names = {f.subtask for f in mine}
        together = {
            a.subtask
            for a in mine
            for b in mine
            if a.subtask != b.subtask and a.arrived < b.answered and b.arrived < a.answered
        }
        return len(names) > 1 and together == names
