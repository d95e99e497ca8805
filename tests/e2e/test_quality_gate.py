"""The quality gate end to end (docs/design.md §12), with real processes: the worker takes
the baseline on the base commit when the task starts, the reviewer's run of each IMPLEMENT
iteration goes to the controller, which does not accept the judge's ADVANCE while a test
that passed there fails; at the limit the PR stays a draft with NOMERGE. What people see on
GitHub says so: the status comment's Quality gate row, the feedback comments, the NOMERGE
comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.environments import OFFLINE_SETTINGS, SETTINGS
from tests.e2e.harness import REPO, Harness
from tests.offline.test_quality_gate import GATE, TESTS_SH
from workers.controller.phases import OverrideRule
from workers.controller.testrun import TestRun

SCENARIO = Path(__file__).parent.parent / "scenarios" / "quality-gate-last-iteration.yml"
pytestmark = pytest.mark.slow
FILES = {SETTINGS: OFFLINE_SETTINGS + "test_command: sh tests.sh\n", "tests.sh": TESTS_SH}


def test_the_gate_holds_implement_and_ends_nomerge(tmp_path: Path) -> None:
    with Harness(tmp_path, extra_files=FILES) as bot:
        model = bot.script(SCENARIO)
        bot.open_issue(31, "Take notes", "Write down what you learn.")
        assert bot.label(31).status_code == 202
        record = bot.wait_finished(31, timeout=180)
        story = "\n".join(bot.timeline(31))
        assert model.errors == [] and model.done, story
        state = record.workflow
        assert state.baseline == TestRun(
            command="sh tests.sh", exit_code=0, passed=1, failed=0, skipped=0
        )
        assert [o.rule for o in state.overrides] == [OverrideRule.QUALITY_GATE], story
        assert [h.summary for h in state.history].count(GATE) == 2

        assert bot.github is not None and record.pr_number is not None
        repo = bot.github.repo(REPO)
        assert repo.pulls[record.pr_number].draft is True
        on_pr = [c.body for c in repo.comments.values() if c.number == record.pr_number]
        on_issue = [c.body for c in repo.comments.values() if c.number == 31]
        gate = GATE.removeprefix("Quality gate: ")
        assert any(
            "### IMPLEMENT iteration 1: judge says ADVANCE → iterate" in body
            and f"**Quality gate:** {gate}" in body
            for body in on_pr
        ), story
        (nomerge,) = [body for body in on_pr if "NOMERGE" in body]
        assert "rule `quality_gate`" in nomerge and gate in nomerge
        (status,) = [body for body in on_issue if "### agentium status" in body]
        assert "| Quality gate | on: `sh tests.sh` on the base commit: 1 passed |" in status
