"""What a task's first step does beside its way to the first agent call, and how a later
step makes up for what a killed first step lost of it.

    opening = Opening(driver)                  # in Driver.begin()
    admitted = opening.admit()                 # the permission check, while the clone runs
    opening.start_beside()                     # the repository map, while the start goes
                                               # on; beside the call: the base commit's
                                               # tests, a spare checkout for the next task,
                                               # 👀, label, status comment
    opening.map_ready()                        # before the state is restored, the prompt built
    ...the first agent call (its runner calls opening.calling() first)...
    opening.settle()                           # before its outcome's effects: those done,
                                               # the baseline applied (``BaselineTaken``)
    opening.close()                            # every thread joined, before the lease ends

The start's effects and the baseline begin once the first model request is on its way
(or after ``CALL_WAIT_S``): on a machine of two cores they would otherwise take CPU from
the first call's own way there, and that call takes seconds to minutes anyway.

The start's GitHub effects keep their order (label, then status comment) and run before
any later effect; each is fenced by the lease and remembered in ``TaskMarks`` as before, and
a failure is raised at ``settle`` as one performed in line would be. The ``begun`` mark
is set once they all succeeded: a later step that finds it missing (the first was killed,
or they failed) does them again in line (``catch_up``), and takes a baseline that never
arrived.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING

from workers.agents.taskfiles import TaskFiles
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

CALL_WAIT_S = 5.0  # the most the start's effects and baseline wait for the first call


def begun_mark(driver: Driver) -> str:
    return f"begun:{driver.record.trigger_delivery}"


class Opening:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.beside = Beside()
        self.effects = InOrder(self.beside)
        self.baseline: Future[TestRun | None] | None = None
        self.repo_map: Future[str] | None = None
        self.called = threading.Event()  # the first model request is on its way

    def calling(self) -> None:
        self.called.set()

    def _after_the_first_call(self) -> None:
        self.called.wait(CALL_WAIT_S)

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

    def start_beside(self) -> None:
        """What the start leaves to threads: the repository map now; the baseline, a spare
        checkout for the repository's next task and the start's effects (in the order
        given) once the first model request is on its way."""
        self.map_repository()
        self.take_baseline()
        self.leave_spare()
        self.defer_effects()

    def leave_spare(self) -> None:
        workspace, key = self.driver.session.workspace, self.driver.record.key

        def spare() -> None:
            self._after_the_first_call()
            try:
                workspace.leave_spare()
            except Exception:  # only the next task's first step is slower for it
                log.exception("no spare checkout was made", extra={"task": key})

        self.beside.submit(spare)

    def map_repository(self) -> None:
        """Build the task's repository map (kept in its state directory for every prompt)
        beside the start's remaining work instead of in the first prompt's build."""
        driver = self.driver
        files, checkout = TaskFiles(driver.session.state_dir), driver.session.workspace.path
        budget = driver.config.agents.context.repo_map_chars
        self.repo_map = self.beside.submit(lambda: files.repo_map(checkout, budget))

    def map_ready(self) -> None:
        """Wait for the map; if it failed, the prompt's build makes it in line."""
        if self.repo_map is not None:
            try:
                self.repo_map.result()
            except Exception:
                log.exception("the repository map failed", extra={"task": self.driver.record.key})
            self.repo_map = None

    def defer_effects(self) -> None:
        """From now until ``settle``, the task's GitHub effects run beside, in order, from
        the first call on."""
        self.effects.then(self._after_the_first_call)
        self.driver.session.effects.defer = self.effects.then

    def take_baseline(self) -> None:
        driver = self.driver

        def baseline() -> TestRun | None:
            self._after_the_first_call()
            return _baseline_or_none(driver)

        self.baseline = self.beside.submit(baseline)

    def settle(self) -> None:
        """The start's effects done, then the baseline applied; what follows is performed
        in line again. A failure of the start's effects (GitHub down) does not cost the
        agent's outcome: it is logged, the ``begun`` mark stays unset and the next step
        does them again (``catch_up``); only a lost lease ends the step here."""
        self.called.set()  # no more waiting: the call is over (or there was none)
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
        self.called.set()
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
