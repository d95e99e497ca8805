"""Work a step does beside its main line, in threads of the step's own process.

The first step of a task has work that the first agent call does not wait for: the
permission check while the repository is cloned, the start's GitHub effects (👀, the
working label, the status comment) while the agent runs, and the test command's run on the
base commit (docs/design.md §12). ``Beside`` runs such work and is closed (every thread
joined) before the step gives its lease back, so nothing it started outlives the step:
a worker killed meanwhile loses it with the step, and the next step does it again.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Beside:
    def __init__(self, threads: int = 4) -> None:
        self._threads = threads
        self._pool: ThreadPoolExecutor | None = None  # made at the first use

    def submit(self, work: Callable[[], T]) -> Future[T]:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="beside")
        return self._pool.submit(work)

    def close(self) -> None:
        """Wait for every thread (their errors stay in their futures)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class InOrder:
    """Work run beside the step one after another, in the order given (GitHub effects:
    the status comment after the label, and both before the next effects)."""

    def __init__(self, beside: Beside) -> None:
        self._beside = beside
        self._last: Future[None] | None = None

    def then(self, work: Callable[[], None]) -> Future[None]:
        before = self._last

        def after_the_previous() -> None:
            if before is not None:
                before.result()  # a failure stops what follows; it is raised at settle()
            work()

        self._last = self._beside.submit(after_the_previous)
        return self._last

    def settle(self) -> None:
        """Wait for the work given so far; raise its first failure."""
        last, self._last = self._last, None
        if last is not None:
            last.result()
