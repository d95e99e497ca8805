"""The status comment shows the task's environment step, and a failed setup's log end."""

from __future__ import annotations

from workers.controller.state import WorkflowState
from workers.github.bodies import LOG_CHARS, EnvironmentLine, status_body


def test_the_environment_row() -> None:
    line = EnvironmentLine("ok in 12.0 s (detected: python)")
    body = status_body(WorkflowState(), environment=line)
    assert "| Environment | ok in 12.0 s (detected: python) |" in body
    assert "setup log" not in body
    assert "Environment" not in status_body(WorkflowState())


def test_a_failed_setup_shows_the_end_of_its_log_fenced() -> None:
    log = "x" * 5000 + "\n```\n| a | b |\nERROR: no matching distribution\n"
    body = status_body(WorkflowState(), environment=EnvironmentLine("failed", log))
    assert "Environment setup log (its end)" in body
    shown = body.split("<summary>Environment setup log (its end)</summary>")[1]
    assert "````text\n" in shown and "ERROR: no matching distribution\n````" in shown
    assert shown.count("x") < LOG_CHARS
