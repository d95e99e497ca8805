"""A scripted model for whole tasks: the controller's scenario files, answered per role.

Each request is matched to the next step of the scenario by the agent's role, read off the
system prompt; a mismatch is recorded (the run then fails loudly rather than drifting). A
worker step that commits first asks for a `write_file` tool call, then, once it sees the
tool's result, gives its final text, so the real tool loop edits the real checkout.
"""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path

from tests.e2e.subtask_model import SubtaskAnswers, subtask_of
from tests.fakes.anthropic import Recorded, Reply, text, tool_use
from workers.controller.phases import Role
from workers.offline.scenario import ScriptStep, load_scenario

ROLE_MARKERS = (
    ("You are the complexity assessor", Role.ASSESSOR),
    ("You are the code reviewer", Role.REVIEWER),
    ("You are the plan reviewer", Role.REVIEWER),
    ("You are the judge", Role.JUDGE),
    ("You are the worker agent", Role.WORKER),
    ("You are the doctor", Role.DOCTOR),
    ("You are the replanner", Role.REPLANNER),
)


def role_of(request: Recorded) -> Role | None:
    system = request.json.get("system") or ""
    first = system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
    for marker, role in ROLE_MARKERS:
        if first.lstrip().startswith(marker):
            return role
    return None


def _tool_names(request: Recorded) -> set[str]:
    return {tool.get("name", "") for tool in request.json.get("tools", [])}


def _last_is_tool_result(request: Recorded) -> bool:
    messages = request.json.get("messages", [])
    content = messages[-1].get("content") if messages else None
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


class ScriptedModel:
    """Callable reply for FakeAnthropic: `fake.push(*[model] * n)`."""

    def __init__(self, scenario: Path, subtask_delay_s: float = 0.0) -> None:
        steps = [s for s in load_scenario(scenario).steps if s.role is not None]
        self.steps: deque[ScriptStep] = deque(steps)
        self.subtasks = SubtaskAnswers(delay_s=subtask_delay_s)
        self.errors: list[str] = []
        self.edits = 0
        self.calls = 0
        self.hold_at: int | None = None  # the request (0-based) to hold until release()
        self.reached = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()

    def release(self) -> None:
        self._release.set()

    def _hold(self) -> None:
        index, self.calls = self.calls, self.calls + 1
        if index == self.hold_at:
            self.reached.set()
            self._release.wait(timeout=120)

    def __call__(self, request: Recorded) -> Reply:
        self._hold()
        with self._lock:
            role = role_of(request)
            if role is Role.WORKER and subtask_of(request) is not None:
                final = _last_is_tool_result(request)
                reply = self.subtasks.answer(self.steps, request, final)
                self.errors += self.subtasks.errors
                self.subtasks.errors.clear()
                return reply
            if role is Role.WORKER and _last_is_tool_result(request):
                return text(self._pop(role).text or "done")  # the worker's final answer
            step = self.steps[0] if self.steps else None
            if step is None or step.role is not role:
                self.errors.append(f"asked for {role}, script has {step and step.role}")
                return text("(script mismatch)")
            if role is Role.WORKER and self._commits(step, request):
                self.edits += 1
                return self.edit(step)
            return text(self._pop(role).text or "")

    def edit(self, step: ScriptStep) -> Reply:
        """The worker's tool call that changes the checkout: a notes file per edit."""
        path = f"AGENTIUM_NOTES_{self.edits}.md"
        return tool_use("write_file", {"path": path, "content": f"{step.text}\n"})

    def _pop(self, role: Role) -> ScriptStep:
        step = self.steps.popleft()
        assert step.role is role
        return step

    @staticmethod
    def _commits(step: ScriptStep, request: Recorded) -> bool:
        writable = "write_file" in _tool_names(request)
        return writable if step.commits is None else step.commits and writable

    @property
    def done(self) -> bool:
        return not self.steps
