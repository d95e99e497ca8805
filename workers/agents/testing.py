"""The repository's test command, run in the task's sandbox: once per task on the base
commit (the baseline, docs/design.md §12) and on every IMPLEMENT iteration's change, for the
reviewer, the judge and the quality gate.

    baseline = take_baseline(sandbox, task, git)      # at the start, the checkout at base
    result = run_tests(sandbox, task)                 # later: result.run, .text, .line
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from workers.agents.gitview import Checkout
from workers.agents.sandbox import BindError, Sandbox
from workers.agents.task import TaskContext
from workers.agents.testcmd import resolve_test_command
from workers.agents.testreport import describe, run_of, versus
from workers.agents.untrusted import quoted
from workers.controller.testrun import TestRun

log = logging.getLogger("agentium.agents")
NO_COMMAND = "No test command is configured in the repository's settings or detectable."
PASSING_LINES = 4


@dataclass(frozen=True)
class TestResult:
    """``run`` None: there is no test command. ``text`` is what the reviewer reads (status,
    figures, the comparison with the baseline, the output), ``line`` the status and
    figures alone."""

    __test__ = False  # not a pytest test class
    run: TestRun | None
    text: str
    line: str


def command_for(task: TaskContext) -> str | None:
    """The baseline's command when it has one (resolved on the base commit, so every run of
    the task is compared like with like), else the configured or detected one."""
    if task.baseline is not None and task.baseline.command:
        return task.baseline.command
    return resolve_test_command(task.checkout, task.test_command)


def run_tests(sandbox: Sandbox, task: TaskContext) -> TestResult:
    """The test command on the checkout as it is, compared with the baseline."""
    command = command_for(task)
    if command is None:
        return TestResult(None, NO_COMMAND, NO_COMMAND)
    result = sandbox.run(command, task.checkout)
    run = run_of(command, result)
    line = describe(run)
    shown = result.describe()
    if result.exit_code == 0:
        tail = "\n".join(shown.splitlines()[-PASSING_LINES:])
        shown = f"[passed: exit code 0; only the last {PASSING_LINES} lines are shown]\n{tail}"
    output = quoted("the test command's output", shown)
    text = f"{versus(task.baseline, run)}\n\nIts output:\n\n{output}"
    return TestResult(run, text, line)


def take_baseline(sandbox: Sandbox, task: TaskContext, git: Checkout) -> TestRun:
    """The test command on the base commit (the checkout must be at it, as when the task
    starts); ``command`` empty when there is none, ``exit_code`` None when it could not
    run. What the run writes into the working tree is discarded, so none of it reaches the
    task's commits."""
    command = resolve_test_command(task.checkout, task.test_command)
    if command is None:
        return TestRun(command="")
    try:
        result = sandbox.run(command, task.checkout)
    except (BindError, OSError) as error:
        log.warning("the baseline could not run", extra={"error": str(error)[:200]})
        return TestRun(command=command)
    finally:
        git.discard_changes()
    return run_of(command, result)
