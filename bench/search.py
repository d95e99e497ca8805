"""The sustained-rate search of `make bench`: the highest open-loop rate a server keeps up with.

A rate is *kept up with* when its run's p99 latency is under the target, nearly every
request was sent on time and answered, and none failed; for the receiver, whose runs are
checked against Redis, also when nothing was lost or stored twice (``sustained``).

Each search starts at half the server's closed-loop rate, goes up by half until a rate
fails (past the closed-loop rate only by a tenth at a time), then halves the gap between
the highest kept and the lowest failed rate, for at most ``STEPS`` steps. A failed step is
measured once more, since a shared machine has bursts of other work, and fails only when
both runs fail. The bare app and the receiver are searched alike, one step of each in
turn (``alternate``), so that what else the machine does falls on both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

TARGET_P99_MS = 20.0
STEPS = 6
CLOSE_ENOUGH = 1.08  # stop once the lowest failed rate is within 8% of the highest kept

Result = dict[str, Any]
Step = Callable[[int], Result]  # one open-loop run at that rate


def kept_up(result: Result) -> bool:
    """p99 under the target, the rate achieved, no error and no refused request."""
    failures = sum(result["rejected"].values()) + sum(result["errors"].values())
    return (
        result["latency_ms"]["p99"] < TARGET_P99_MS
        and result["achieved_rate"] >= 0.98 * result["offered_rate"]
        and not failures
    )


def sustained(result: Result) -> bool:
    """Kept up with, and (a run checked against Redis) nothing lost or stored twice."""
    return kept_up(result) and not result["lost"] and not result["duplicates_enqueued"]


@dataclass
class Search:
    """One server's search; `rate` is the next rate to run while not `done`."""

    cap: float  # the server's closed-loop rate
    kept: Callable[[Result], bool]
    rate: float = 0.0
    good: float = 0.0  # the highest rate kept up with so far
    bad: float = math.inf  # the lowest rate that failed so far
    steps_left: int = STEPS
    retrying: bool = False
    runs: list[Result] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rate = max(self.cap / 2, 100.0)

    @property
    def done(self) -> bool:
        return self.steps_left <= 0 or self.bad / max(self.good, 1.0) < CLOSE_ENOUGH

    def record(self, result: Result) -> None:
        """Take the run at `rate` and choose the next rate."""
        self.runs.append(result)
        kept = self.kept(result)
        if not kept and not self.retrying:
            self.retrying = True  # the same rate once more
            return
        self.retrying = False
        self.steps_left -= 1
        if kept:
            self.good = max(self.good, self.rate)
        else:
            self.bad = min(self.bad, self.rate)
        self.rate = self._next()

    def _next(self) -> float:
        if self.bad == math.inf:
            return max(min(self.good * 1.5, self.cap), self.good * 1.1)
        return (self.good + self.bad) / 2

    def highest(self) -> float:
        """The highest rate kept up with (0 when none was)."""
        return max((r["offered_rate"] for r in self.runs if self.kept(r)), default=0.0)


def alternate(searches: Sequence[tuple[Search, Step]]) -> None:
    """Run the searches to the end, one step of each in turn."""
    while not all(search.done for search, _ in searches):
        for search, step in searches:
            if not search.done:
                search.record(step(round(search.rate)))
