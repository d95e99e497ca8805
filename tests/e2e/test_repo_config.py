"""`.github/agentium.yml` end to end: its own trigger label and limits, or a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.environments import OFFLINE_SETTINGS
from tests.e2e.harness import REPO, Harness
from workers.tasks.record import TaskStatus

SCENARIOS = Path(__file__).parent.parent / "scenarios"
pytestmark = pytest.mark.slow

CUSTOM = "trigger_label: ai-task\nlimits:\n  SIMPLE:\n    IMPLEMENT: 1\n" + OFFLINE_SETTINGS
BROKEN = "limits:\n  SIMPLE:\n    PLAN: 99\nsurprise: true\n"


def test_the_repository_chooses_its_label_and_limits(tmp_path: Path) -> None:
    files = {".github/agentium.yml": CUSTOM}
    with Harness(tmp_path, extra_files=files) as bot:
        model = bot.script(SCENARIOS / "issue-22-simple.yml")
        bot.open_issue(5, "Custom label", "Use the repository's label.")
        assert bot.label(5, label="agentium").status_code == 202  # not this repo's label
        assert bot.label(5, label="ai-task").status_code == 202
        record = bot.wait_finished(5)
        assert record.status is TaskStatus.FINISHED
        # IMPLEMENT was limited to 1 iteration: the judge's ITERATE there is overridden.
        assert record.workflow.iterations["IMPLEMENT"] == 1
        assert record.workflow.controller_overrode is True
        assert model.calls > 0


def test_a_broken_file_gets_one_comment_and_no_task(tmp_path: Path) -> None:
    with Harness(tmp_path, extra_files={".github/agentium.yml": BROKEN}) as bot:
        model = bot.script(SCENARIOS / "issue-22-simple.yml")
        bot.open_issue(6, "Broken settings", "Anything.")
        assert bot.label(6).status_code == 202
        record = bot.wait_for(6, lambda r: r.status is TaskStatus.CANCELLED, 60, "to stop")
        assert model.calls == 0
        assert bot.github is not None
        [comment] = [c.body for c in bot.github.repo(REPO).comments.values() if c.number == 6]
        assert "| 3 | `limits.SIMPLE.PLAN` | must be between 1 and 20 |" in comment
        assert "surprise" in comment
        assert "invalid .github/agentium.yml" in (record.status_reason or "")
