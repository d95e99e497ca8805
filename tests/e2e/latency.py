"""How long the fake model takes to answer: a setting of the fake server, per request.

    latency = Latencies()
    latency.plan(42, {4: 50.0})          # issue #42's fifth request is answered after 50 s
    fake.latency = latency

Requests are counted per issue in the order they arrive (a request whose client died
counts too). The delay is the fake's: the code under test just waits for its answer, as
it would wait for a real model.
"""

from __future__ import annotations

import threading
from collections import Counter

from tests.e2e.multitask import issue_of
from tests.fakes.anthropic import Recorded


class Latencies:
    def __init__(self, default_s: float = 0.0) -> None:
        self.default_s = default_s
        self.seen: Counter[int | None] = Counter()
        self._plans: dict[int, dict[int, float]] = {}
        self._lock = threading.Lock()

    def plan(self, issue: int, seconds_by_request: dict[int, float]) -> None:
        with self._lock:
            self._plans[issue] = dict(seconds_by_request)

    def __call__(self, request: Recorded) -> float:
        issue = issue_of(request)
        with self._lock:
            index = self.seen[issue]
            self.seen[issue] += 1
            plan = self._plans.get(issue, {}) if issue is not None else {}
            return plan.get(index, self.default_s)
