"""Machine upkeep a worker runs between jobs, at most once a period, never fatally."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger("agentium.worker")

T = TypeVar("T")


class Periodic(Generic[T]):
    """``maybe_run`` runs ``run`` at most once every ``every_s`` by ``clock`` (cheap to call
    often); a run that fails is logged and gives nothing, since upkeep must not stop the
    worker. Subclasses (dataclasses) have the fields ``every_s``, ``clock`` and
    ``_last_run`` (None at first), and say in ``failure`` what failed, to ``logger``."""

    every_s: float
    clock: Callable[[], float]
    _last_run: float | None
    failure = "periodic upkeep failed"
    logger = log

    def run(self) -> list[T]:
        raise NotImplementedError

    def maybe_run(self) -> list[T]:
        now = self.clock()
        if self._last_run is not None and now - self._last_run < self.every_s:
            return []
        self._last_run = now
        try:
            return self.run()
        except Exception:
            self.logger.exception(self.failure)
            return []
