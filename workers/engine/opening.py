"""What a task's first step does beside its way to the first agent call, and how a later
step makes up for what a killed first step lost of it.

    opening = Opening(driver)                  # in Driver.begin()
    admitted = opening.admit()                 # the permission check, while the clone runs
    opening.defer_effects()                    # 👀, label, status comment: beside the call
    opening.take_baseline()                    # the base commit's tests: beside the call
    ...the first agent call...
    opening.settle()                           # before its outcome's effects: those done,
                                               # the baseline applied (``BaselineTaken``)
    opening.close()                            # every thread joined, before the lease ends

The start's GitHub effects keep their order (label, then status comment) and run before
any later effect; each is fenced by the lease and remembered in ``TaskMarks`` as before, and
a failure is raised at ``settle`` as one performed in line would be. The ``begun`` mark
is set once they all succeeded: a later step that finds it missing (the first was killed,
or they failed) does them again in line (``catch_up``), and takes a baseline that never
arrived.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING

from workers.controller.core import status
from workers.controller.outcomes import BaselineTaken
from workers.controller.testrun import TestRun
from workers.engine.baseline import take_baseline_aside
from workers.engine.beside import Beside, InOrder
from workers.github import permissions
from workers.tasks.lease import Fenced

if TYPE_CHECKING:
    from workers.engine.driver import Driver

log = logging.getLogger("agentium.steps")


def begun_mark(driver: Driver) -> str:
    return f"begun:{driver.record.trigger_delivery}"


class Opening:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.beside = Beside()
        self.effects = InOrder(self.beside)
        self.baseline: Future[TestRun | None] | None = None

    def admit(self) -> Future[bool]:
        session, user = self.driver.session, self.driver.record.trigger_user
        marks, watch = session.effects.marks, self.driver.watch

        def check() -> bool:
            started = time.perf_counter()
            try:
                return permissions.admit(session.gh, session.ref, user, marks)
            finally:
                watch.beside["admit"] = time.perf_counter() - started

        return self.beside.submit(check)

    def defer_effects(self) -> None:
        """From now until ``settle``, the task's GitHub effects run beside, in order."""
        self.driver.session.effects.defer = self.effects.then

    def take_baseline(self) -> None:
        driver = self.driver
        self.baseline = self.beside.submit(lambda: _baseline_or_none(driver))

    def settle(self) -> None:
        """The start's effects done, then the baseline applied; what follows is performed
        in line again. A failure of the start's effects (GitHub down) does not cost the
        agent's outcome: it is logged, the ``begun`` mark stays unset and the next step
        does them again (``catch_up``); only a lost lease ends the step here."""
        effects = self.driver.session.effects
        if effects.defer is not None:
            marks, mark = effects.marks, begun_mark(self.driver)
            self.effects.then(lambda: marks.set(mark, 1))
            effects.defer = None
        try:
            self.effects.settle()
        except Fenced:
            raise
        except Exception:
            log.exception("the start's effects failed", extra={"task": self.driver.record.key})
        if self.baseline is not None:
            run, self.baseline = self.baseline.result(), None
            if run is not None:
                self.driver.apply(BaselineTaken(run))

    def close(self) -> None:
        """Join every thread; after a failure of the step, what they raised is logged."""
        self.driver.session.effects.defer = None
        self.beside.close()
        try:
            self.effects.settle()
        except Exception:
            log.exception("the start's effects failed", extra={"task": self.driver.record.key})


def _baseline_or_none(driver: Driver) -> TestRun | None:
    """The baseline, or None when it could not be taken (the next step tries again)."""
    try:
        return take_baseline_aside(driver.rt, driver.session, driver.config)
    except Exception:
        log.exception("the baseline could not be taken", extra={"task": driver.record.key})
        return None


def catch_up(driver: Driver) -> None:
    """In a step after the first: the start's effects and baseline if they were lost."""
    record, effects = driver.record, driver.session.effects
    if not record.workflow.started or record.workflow.phase.is_terminal:
        return
    if not effects.marks.get(begun_mark(driver)):
        effects.start()  # once per run: a no-op when it was done
        effects.perform((status(record.workflow),), record.workflow)
        effects.marks.set(begun_mark(driver), 1)
    if record.workflow.baseline is None:
        run = _baseline_or_none(driver)
        if run is not None:
            driver.apply(BaselineTaken(run))
