"""A clock that tests move by hand; ``sleep`` advances it instead of waiting."""

from __future__ import annotations

import threading


class ManualClock:
    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self.slept: list[float] = []

    def now(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)
            self._now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
