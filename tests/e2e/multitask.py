"""A scripted model for many tasks at once: each request goes to its issue's script.

The agents' prompts carry the issue (`# The goal: issue #N`, `# The issue #N`), so the
router reads the first `issue #N` of the request, in the order the model sees the prompt
(tools, system, messages), and hands the request to that issue's `ScriptedModel`.
Requests it cannot route are recorded in `errors`. Optional error replies can be given
per issue (`fail_first`): they answer that issue's next requests before its script does.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from pathlib import Path

from tests.e2e.model import ScriptedModel
from tests.fakes.anthropic import Recorded, Reply, prompt_bytes, text

ISSUE = re.compile(rb"issue #(\d+)")


def issue_of(request: Recorded) -> int | None:
    """The issue a request is about: the first `issue #N` of its prompt."""
    found = ISSUE.search(prompt_bytes(request.json))
    return int(found.group(1)) if found else None


class TaskRouter:
    """Callable reply for FakeAnthropic that serves many tasks: `fake.push(*[router] * n)`."""

    def __init__(self) -> None:
        self.models: dict[int, ScriptedModel] = {}
        self.errors: list[str] = []
        self.first_request: dict[int, float] = {}  # issue -> time.time() of its first request
        self._faults: dict[int, deque[Reply]] = {}
        self._lock = threading.Lock()

    def add(self, number: int, scenario: Path) -> ScriptedModel:
        model = ScriptedModel(scenario)
        self.models[number] = model
        return model

    def fail_first(self, number: int, *replies: Reply) -> None:
        """Answer issue `number`'s next requests with these replies (errors, say)."""
        self._faults.setdefault(number, deque()).extend(replies)

    def __call__(self, request: Recorded) -> Reply:
        number = issue_of(request)
        with self._lock:
            if number is not None:
                self.first_request.setdefault(number, time.time())
            model = self.models.get(number) if number is not None else None
            if model is None:
                self.errors.append(f"no script for issue {number}")
                return text("(no script for this issue)")
            faults = self._faults.get(number)
            if faults:
                return faults.popleft()
        return model(request)

    @property
    def done(self) -> bool:
        return all(model.done for model in self.models.values())

    def mismatches(self) -> list[str]:
        """Every error: unrouted requests and each script's mismatches."""
        found = list(self.errors)
        for number, model in sorted(self.models.items()):
            found += [f"#{number}: {error}" for error in model.errors]
        return found
