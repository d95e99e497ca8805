"""A model that answers by role, not by sequence, so a repeated agent call is harmless.

A fault (a killed worker, Redis gone while a step saves) makes the bot repeat the agent
call in flight; a scripted sequence would then drift. This model gives every call of a
role the same kind of answer: a plan, SIMPLE, a short review, ADVANCE; a worker with
`write_file` first writes a fresh file (so every IMPLEMENT and DOCS iteration commits),
then answers. A task it serves ends COMPLETE on the SIMPLE path: PLAN 1, IMPLEMENT 1,
DOCS 1, ready. It can hold one request (`hold_at`, `reached`, `release()`).
"""

from __future__ import annotations

import itertools
import threading

from tests.e2e.model import role_of
from tests.fakes.anthropic import Recorded, Reply, text, tool_use
from workers.controller.phases import Role

PLAN = "### Task 1: keep inline comments\nParse `;` comments in _parse.py."
ANSWERS = {
    Role.ASSESSOR: "AGENTIUM_EVAL: SIMPLE",
    Role.REVIEWER: "Correct and tested.",
    Role.JUDGE: "AGENTIUM_EVAL: ADVANCE",
}
ITERATIONS = {"IMPLEMENT": 1, "DOCS": 1}


def _tool_result_last(request: Recorded) -> bool:
    messages = request.json.get("messages", [])
    content = messages[-1].get("content") if messages else None
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


class SteadyModel:
    """Callable reply for FakeAnthropic: `fake.push(*[model] * n)`."""

    def __init__(self) -> None:
        self.calls = 0
        self.unknown = 0
        self.hold_at: int | None = None
        self.reached = threading.Event()
        self._release = threading.Event()
        self._files = itertools.count(1)

    def release(self) -> None:
        self._release.set()

    def __call__(self, request: Recorded) -> Reply:
        index, self.calls = self.calls, self.calls + 1
        if index == self.hold_at:
            self.reached.set()
            self._release.wait(timeout=120)
        role = role_of(request)
        if role is Role.WORKER:
            return self._worker(request)
        if role is None or role not in ANSWERS:
            self.unknown += 1
            return text("(unknown agent)")
        return text(ANSWERS[role])

    def _worker(self, request: Recorded) -> Reply:
        if _tool_result_last(request):
            return text("Done, with tests.")
        tools = {tool.get("name") for tool in request.json.get("tools", [])}
        if "write_file" not in tools:
            return text(PLAN)
        number = next(self._files)
        return tool_use("write_file", {"path": f"NOTES_{number}.md", "content": f"{number}\n"})
