"""One seed workflow end to end with real processes (fast enough for every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness

SCENARIOS = Path(__file__).parent.parent / "scenarios"
pytestmark = pytest.mark.slow


def test_issue_42_ends_ready_for_review(tmp_path: Path) -> None:
    with Harness(tmp_path) as bot:
        model = bot.script(SCENARIOS / "issue-42-complex.yml")
        bot.open_issue(42, "Parse inline comments", "iniconfig should keep ; comments")
        assert bot.label(42).status_code == 202
        record = bot.wait_finished(42, timeout=120)
        print("\n".join(bot.timeline(42)))
        assert model.errors == []
        assert model.done
        assert record.workflow.phase.value == "COMPLETE"
        assert record.pr_number is not None
        assert bot.github is not None
        pull = bot.github.repo(REPO).pulls[record.pr_number]
        assert pull.draft is False
        # The environment step ran before PLAN (here the repository's offline command).
        assert record.environment is not None and record.environment.ok
        assert record.environment.source == "configured"
        status = [c.body for c in bot.github.repo(REPO).comments.values() if "status" in c.body]
        assert any("| Environment | ok in " in body for body in status), status
