"""The simulator: the seed's example workflows, the summary line, errors naming the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workers.controller.testrun import TestRun
from workers.offline.scenario import TEST_COMMAND, ScenarioError, load_scenario, parse_scenario
from workers.offline.simulate import main, mismatches, run_scenario, simulate

SCENARIOS = Path(__file__).parent.parent / "scenarios"

# docs/design.md §1, "The four example workflows": how they end.
SEED_ENDINGS = {
    "issue-22-simple.yml": ("SIMPLE", True, "nomerge", {"PLAN": 1, "IMPLEMENT": 2, "DOCS": 1}),
    "issue-42-complex.yml": ("COMPLEX", False, "ready", {"PLAN": 1, "IMPLEMENT": 1, "DOCS": 1}),
    "issue-99-iterations.yml": ("COMPLEX", False, "ready", {"PLAN": 2, "IMPLEMENT": 3, "DOCS": 1}),
    "issue-77-auto-advance.yml": (
        "COMPLEX",
        True,
        "nomerge",
        {"PLAN": 3, "IMPLEMENT": 1, "DOCS": 1},
    ),
}


# docs/design.md §9: a phase's second failed iteration asks the doctor.
LADDER = {
    "issue-99-iterations.yml": ["doctor", "retry_with_fix"],
    "issue-77-auto-advance.yml": ["doctor", "retry_with_fix"],
}


@pytest.mark.parametrize("name", sorted(SEED_ENDINGS))
def test_seed_examples_end_as_design_decides(name: str) -> None:
    path, overrode, pr, iterations = SEED_ENDINGS[name]
    result = run_scenario(SCENARIOS / name)
    assert result.summary == {
        "final_phase": "COMPLETE",
        "path": path,
        "controller_overrode": overrode,
        "pr": pr,
        "iterations": iterations,
        "review_rounds": 0,
        "spend": {"tokens": 0, "usd": 0.0},
        "recovery": LADDER.get(name, []),
    }
    assert "trace" in load_scenario(SCENARIOS / name).expect, "seed scenarios pin the trace"


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yml")), ids=lambda p: p.name)
def test_every_scenario_meets_its_expectations(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.expect, "a scenario under tests/ states what it expects"
    assert mismatches(scenario, simulate(scenario)) == []


def test_override_is_named_in_the_trace() -> None:
    trace = run_scenario(SCENARIOS / "issue-77-auto-advance.yml").trace
    assert "  → Controller overrides: ADVANCE (max_iterations)" in trace
    assert any(
        line.startswith("  → Controller comments NOMERGE on draft PR #175") for line in trace
    )
    assert trace[-1] == "Final Phase: COMPLETE"


def test_main_prints_the_trace_then_one_json_summary_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([str(SCENARIOS / "issue-42-complex.yml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Task: issue:42"
    summary = json.loads(lines[-1])
    assert list(summary) == [
        "final_phase",
        "path",
        "controller_overrode",
        "pr",
        "iterations",
        "review_rounds",
        "spend",
        "recovery",
    ]
    assert summary["pr"] == "ready"


def test_main_fails_when_expectations_do_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (SCENARIOS / "nothing-to-do.yml").read_text().replace("pr: none", "pr: ready")
    scenario = tmp_path / "wrong.yml"
    scenario.write_text(text)
    assert main([str(scenario)]) == 1
    assert "pr: expected 'ready', got 'none'" in capsys.readouterr().err


def test_main_reports_a_malformed_scenario(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "bad.yml"
    scenario.write_text("steps:\n  - worker: plan\n  - judge: 'AGENTIUM_EVAL: ADVANCE'\n")
    assert main([str(scenario)]) == 2
    err = capsys.readouterr().err
    assert f"{scenario}:3:" in err and "asks for the assessor" in err
    assert main([]) == 2
    assert main([str(tmp_path / "missing.yml")]) == 2


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("steps:\n  - worker: a\n  - judg: b\n", 3, "unknown key 'judg'"),
        ("steps:\n  - worker: a\n    reviewer: b\n", 2, "exactly one of"),
        ("steps:\n  - worker: a\n  - reviewer: b\n", 3, "asks for the assessor"),
        ("steps:\n  - worker: [a\n", 3, "not valid YAML"),
        ("task: x\n", 1, "steps"),
        ("steps: {}\n", 1, "steps"),
        ("", 1, "empty"),
        ("steps: []\nbogus: 1\n", 2, "unknown key 'bogus'"),
        ("pr_number: many\nsteps: []\n", 1, "pr_number"),
        ("steps:\n  - worker: {text: a, commits: maybe}\n", 2, "worker.commits"),
        ("steps:\n  - worker: {txt: a}\n", 2, "unknown key 'txt'"),
        ("steps:\n  - reviewer: null\n", 2, "reviewer: expected text"),
        ("steps:\n  - fail: {role: boss}\n", 2, "fail.role"),
        ("steps:\n  - fail: {error: x}\n", 2, "needs a role"),
        ("steps:\n  - command: explode\n", 2, "not one of stop, retry, status"),
        ("steps:\n  - budget: {role: boss}\n", 2, "budget.role"),
        ("steps:\n  - budget: {figures: x}\n", 2, "unknown key 'figures'"),
        ("steps:\n  - worker: a\n  - budget: {role: judge}\n", 3, "asks for the assessor"),
        ("steps:\n  - review: {user: alice}\n", 2, "review: needs a text"),
        ("steps:\n  - review: {text: a, reviews: r-1}\n", 2, "review.reviews"),
        ("steps:\n  - review: [a]\n", 2, "review: expected text"),
        ("steps:\n  - spend: {input_tokens: many}\n", 2, "spend.input_tokens"),
        ("steps:\n  - spend: {cost_usd: -1}\n", 2, "spend.cost_usd"),
        ("steps:\n  - spend: {tokens: 1}\n", 2, "unknown key 'tokens'"),
        ("settings:\n  limits: {eval_no_signal_limit: -1}\nsteps: []\n", 2, "eval_no_signal_limit"),
        ("expect:\n  phase: COMPLETE\nsteps: []\n", 2, "unknown key 'phase'"),
        ("baseline: {passed: many}\nsteps: []\n", 1, "baseline.passed: expected int"),
        ("baseline: {failed: -1}\nsteps: []\n", 1, "baseline.failed: expected a number >= 0"),
        ("baseline: {failing: a}\nsteps: []\n", 1, "baseline.failing: expected list"),
        ("baseline: {ids: [a]}\nsteps: []\n", 1, "unknown key 'ids'"),
        ("baseline: passed\nsteps: []\n", 1, "baseline must be a mapping"),
        ("steps:\n  - reviewer: {text: r, tests: {exit: 1}}\n", 2, "unknown key 'exit'"),
        ("steps:\n  - reviewer: {txt: r}\n", 2, "unknown key 'txt'"),
        ("steps:\n  - reviewer: {failing: [a], tests: {}}\n", 2, "tests or failing, not both"),
        ("steps:\n  - reviewer: {failing: a}\n", 2, "reviewer.failing: expected list"),
        ("steps:\n  - worker: a\n  - worker: b\n", 3, "asks for the assessor"),
        (
            "steps:\n  - worker: 'AGENTIUM_STATUS: NOTHING_TO_DO'\n  - assessor: null\n",
            3,
            "already ended",
        ),
    ],
)
def test_malformed_scenarios_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        simulate(parse_scenario(text, "s.yml"))
    assert str(caught.value).startswith(f"s.yml:{line}:")
    assert message in str(caught.value)


def test_a_scenario_that_stops_early_says_what_the_controller_waits_for() -> None:
    with pytest.raises(ScenarioError, match=r"waits for the reviewer \(PLAN iteration 1\)"):
        simulate(parse_scenario("steps:\n  - worker: a\n  - assessor: null\n", "s.yml"))


def test_settings_change_the_limits() -> None:
    text = """
settings:
  limits:
    COMPLEX: {PLAN: 1, IMPLEMENT: 5, DOCS: 3}
steps:
  - worker: plan
  - assessor: null
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ITERATE"
  - worker: code
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
  - worker: docs
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""
    result = simulate(parse_scenario(text, "s.yml"))
    assert result.summary["controller_overrode"] is True
    assert "Iteration 1/1:" in result.trace


def test_commands_and_failures_in_a_scenario() -> None:
    text = """
steps:
  - worker: plan
  - assessor: "AGENTIUM_EVAL: SIMPLE"
  - worker: {text: code, commits: false}
  - command: {command: stop, user: octocat}
  - command: status
  - command: retry
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""
    result = simulate(parse_scenario(text, "s.yml"))
    assert result.summary["final_phase"] == "BLOCKED"
    assert result.state.end_reason.startswith("no changes")
    assert "  → stopped by @octocat" in result.trace
    assert "  → Resumed" in result.trace


def test_reviews_queued_while_running_become_one_round() -> None:
    text = """
steps:
  - worker: plan
  - assessor: "AGENTIUM_EVAL: SIMPLE"
  - review: first thing
  - worker: code
  - review: {text: second thing, user: bob, reviews: [r-2]}
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
  - worker: docs
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
  - worker: addresses both
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
  - worker: docs
  - reviewer: r
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""
    result = simulate(parse_scenario(text, "s.yml"))
    assert result.summary["review_rounds"] == 1 and result.summary["pr"] == "ready"
    (round_,) = result.state.review_rounds
    assert round_.text == "first thing\n\n---\n\nsecond thing"
    assert (round_.user, round_.reviews) == ("reviewer, bob", ("r-2",))
    assert "  → Controller replies on PR #1 to r-2: PR marked ready for review" in result.trace


def test_a_budget_step_for_the_controller_matches_any_agent() -> None:
    text = "steps:\n  - worker: plan\n  - budget: {detail: time 61 min of 60 min}\n"
    result = simulate(parse_scenario(text, "s.yml"))
    assert result.summary["final_phase"] == "BLOCKED" and result.state.paused is None
    assert "  → budget exceeded: time 61 min of 60 min" in result.trace


def test_test_runs_in_a_scenario_default_their_exit_code_and_command() -> None:
    text = """
baseline: {passed: 3, failing: [t::old]}
steps:
  - worker: plan
  - assessor: "AGENTIUM_EVAL: SIMPLE"
  - worker: code
  - reviewer: {text: r, tests: {passed: 4, exit_code: null}}
"""
    scenario = parse_scenario(text, "s.yml")
    assert scenario.baseline == TestRun(
        command=TEST_COMMAND, exit_code=1, passed=3, failing=("t::old",)
    )
    tests = scenario.steps[-1].tests
    assert tests == TestRun(command=TEST_COMMAND, exit_code=None, passed=4)
    assert scenario.steps[-1].text == "r"
    assert parse_scenario("baseline: {}\nsteps: []\n").baseline == TestRun(
        command=TEST_COMMAND, exit_code=0
    )


def test_a_reviewers_failing_tests_are_short_for_its_test_run() -> None:
    short = parse_scenario("steps:\n  - reviewer: {text: r, failing: [t::a, t::b]}\n")
    full = parse_scenario("steps:\n  - reviewer: {text: r, tests: {failing: [t::a, t::b]}}\n")
    assert short.steps[0].tests == full.steps[0].tests
    assert full.steps[0].tests == TestRun(
        command=TEST_COMMAND, exit_code=1, failing=("t::a", "t::b")
    )


def test_the_trace_says_whether_the_gate_is_on() -> None:
    trace = run_scenario(SCENARIOS / "quality-gate-off.yml").trace
    assert trace[1] == "Quality gate: off: no test command"
    trace = run_scenario(SCENARIOS / "quality-gate-last-iteration.yml").trace
    assert trace[1] == "Quality gate: on: `sh tests.sh` on the base commit: 1 passed"
    assert "  → Controller overrides: ADVANCE (quality_gate)" in trace
    assert not any(
        "Quality gate" in line for line in run_scenario(SCENARIOS / "no-signal.yml").trace
    )


# --- phased plans (docs/design.md §8) ------------------------------------------------------


def test_the_seeds_tdd_plan_runs_in_five_waves_with_a_review_each() -> None:
    trace = run_scenario(SCENARIOS / "waves-tdd-seed.yml").trace
    starts = [line for line in trace if "→ Wave " in line and " started" in line]
    assert [s.split(" started")[0].strip() for s in starts] == [
        f"→ Wave {n}/5" for n in range(1, 6)
    ]
    assert sum("judge verdict: ADVANCE" in line for line in trace) == 5
    joins = [line for line in trace if "Join of wave" in line]
    assert joins[1].endswith("(Wave 2: Implement User model, Implement Post model)")


def test_a_wave_retried_once_and_a_wave_failing_twice() -> None:
    once = run_scenario(SCENARIOS / "waves-retry-once.yml").trace
    assert sum("attempt 1 of 2 failed" in line for line in once) == 2  # a conflict, an ITERATE
    assert any("changes overlap: tests/conftest.py" in line for line in once)
    twice = run_scenario(SCENARIOS / "waves-fail-twice.yml")
    assert any(
        line.startswith("  → Wave walk stopped: wave 2 failed 2 attempt(s)")
        and "not run: 3" in line
        for line in twice.trace
    )
    assert twice.state.walk.waves[2].status == "pending"


def test_plan_check_scenarios() -> None:
    cycle = run_scenario(SCENARIOS / "plan-cycle.yml").trace
    assert (
        "  → Plan check: 1 error(s) -> ITERATE (no judge): dependency cycle: 1 -> 2 -> 1" in cycle
    )
    advisory = run_scenario(SCENARIOS / "tdd-advisory.yml")
    assert advisory.state.plan_findings and advisory.summary["pr"] == "ready"
    required = run_scenario(SCENARIOS / "tdd-required.yml")
    assert required.summary["pr"] == "nomerge"
    assert [w.ids for w in required.state.walk.waves] == [("1",), ("2",)]


WAVE_PLAN = """
  - worker: "### Task 1: a\\nDepends on: none\\n### Task 2: b\\nDepends on: none\\n"
  - assessor: null
  - reviewer: ok
  - judge: "AGENTIUM_EVAL: ADVANCE"
"""


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ("  - subtask: {id: '3', text: x}\n", ":6: wave 1 runs subtasks 1, 2, not '3'"),
        ("  - subtask: {id: '1'}\n  - subtask: {id: '1'}\n", ":7: subtask 1 is already answered"),
        (
            "  - worker: x\n",
            ":6: the controller asks for the subtasks 1, 2 of wave 1, not a worker",
        ),
        ("  - subtask: {text: x}\n", ":6: subtask: needs the id"),
        ("  - subtask: {id: '1'}\n", "ends while the controller waits for the subtasks 1, 2"),
    ],
)
def test_malformed_wave_steps_name_the_line(steps: str, message: str) -> None:
    scenario = f"steps:{WAVE_PLAN}{steps}"
    with pytest.raises(ScenarioError, match=message.replace("(", r"\(")):
        simulate(parse_scenario(scenario, "s.yml"))
