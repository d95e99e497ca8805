"""A repository's plan rules reach the live bot's controller, not only local mode's and the
simulator's: `tdd: required` in `.github/agentium.yml` makes the plan that breaks the TDD
rule a structural error (PLAN iterates without a judge, the last one is forced on,
NOMERGE), exactly as the scenario `tdd-required.yml` says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.environments import OFFLINE_SETTINGS, SETTINGS
from tests.e2e.harness import Harness
from workers.offline.scenario import load_scenario

SCENARIO = Path(__file__).parent.parent / "scenarios" / "tdd-required.yml"
REPO_SETTINGS = OFFLINE_SETTINGS + (
    "tdd: required\nlimits:\n  COMPLEX: {PLAN: 2, IMPLEMENT: 5, DOCS: 3}\n"
)
pytestmark = pytest.mark.slow


def test_tdd_required_in_the_repository_settings_is_honoured(tmp_path: Path) -> None:
    expect = load_scenario(SCENARIO).expect
    with Harness(tmp_path, workers=1, extra_files={SETTINGS: REPO_SETTINGS}) as bot:
        model = bot.script(SCENARIO)
        bot.open_issue(41, "Parse inline comments", "Parse inline comments in iniconfig.")
        assert bot.label(41).status_code == 202
        record = bot.wait_finished(41, timeout=180)
        assert model.errors == [] and model.done, "\n".join(bot.timeline(41))
    state = record.workflow
    assert state.phase.value == expect["final_phase"]
    assert state.controller_overrode is expect["controller_overrode"]
    assert {p.value: n for p, n in state.iterations.items()} == expect["iterations"]
