"""The environment step in the real processes, with the package index: a task on iniconfig
without settings gets the detected environment (with the network), its tests run in the
sandbox (once on the base commit: the quality gate's baseline), and their figures reach the
reviewer and the judge; the status comment says how the setup went and that the gate is
on. Marked ``index``: skips, saying why, without the package index."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness
from tests.e2e.model import role_of
from tests.index import skip_without_index
from workers.controller.phases import Role

SCENARIOS = Path(__file__).parent.parent / "scenarios"
pytestmark = [pytest.mark.slow, pytest.mark.index, pytest.mark.timeout(900)]
TESTS = "passed (exit code 0): 42 passed"


def test_a_task_gets_the_detected_environment_and_its_test_figures(tmp_path: Path) -> None:
    skip_without_index()
    with Harness(tmp_path, settings_file=None) as bot:
        model = bot.script(SCENARIOS / "issue-42-complex.yml")
        bot.open_issue(42, "Parse inline comments", "iniconfig should keep ; comments")
        assert bot.label(42).status_code == 202
        record = bot.wait_finished(42, timeout=600)
        assert model.errors == [] and model.done, bot.logs()
        environment = record.environment
        assert environment is not None and environment.ok, environment
        assert environment.source == "detected: python" and environment.network
        assert environment.command.startswith("python -m pip install -e .")
        assert bot.github is not None and bot.llm is not None
        status = [c.body for c in bot.github.repo(REPO).comments.values() if "status" in c.body]
        assert any("| Environment | ok in " in b and "detected: python" in b for b in status)
        baseline = record.workflow.baseline  # on the base commit, in that environment
        assert baseline is not None and (baseline.exit_code, baseline.passed) == (0, 42)
        assert any("| Quality gate | on: `" in b and ": 42 passed |" in b for b in status)
        seen: dict[Role, list[str]] = {Role.REVIEWER: [], Role.JUDGE: []}
        for request in bot.llm.requests:
            role = role_of(request)
            if role in seen:
                seen[role].append(request.raw.decode())
        assert any(TESTS in body for body in seen[Role.REVIEWER]), "the reviewer saw the run"
        assert any(TESTS in body for body in seen[Role.JUDGE]), "the judge saw the figures"
