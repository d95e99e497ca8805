"""The status comment shows the task's environment step, a failed setup's log end, and
whether the quality gate is on; a feedback comment says when the gate fired."""

from __future__ import annotations

from tests.controller.controller_support import NOW
from workers.controller.limits import Limits
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


def test_the_quality_gate_row_says_whether_it_is_on() -> None:
    from workers.controller.outcomes import Start
    from workers.controller.testrun import TestRun
    from workers.controller.transitions import step
    from workers.github.bodies import feedback_body

    assert "Quality gate" not in status_body(WorkflowState())  # not started yet
    base = TestRun(command="make test | tee log", exit_code=0, passed=5)
    started = step(WorkflowState(), Start(baseline=base), Limits(), now=NOW).state
    row = "| Quality gate | on: `make test \\| tee log` on the base commit: 5 passed |"
    assert row in status_body(started)
    none = step(WorkflowState(), Start(baseline=TestRun(command="")), Limits(), now=NOW).state
    assert "| Quality gate | off: no test command |" in status_body(none)
    old = step(WorkflowState(), Start(), Limits(), now=NOW).state
    assert "| Quality gate | off: no baseline was taken |" in status_body(old)

    said = {"phase": "IMPLEMENT", "iteration": "1", "verdict": "ADVANCE", "decision": "iterate"}
    gate = "1 test that passed on the base commit fails now: `t::a`"
    body = feedback_body("feedback-x", {**said, "gate": gate})
    assert "judge says ADVANCE → iterate" in body and f"**Quality gate:** {gate}" in body
