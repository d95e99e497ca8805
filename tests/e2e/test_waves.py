"""Waves end to end (docs/design.md §8): real processes, two workers, a slow fake model.

A COMPLEX plan of 2 waves of 2 subtasks: the subtasks of each wave are in flight at the same
time (the fake model records when each call arrived and was answered), each wave lands as
one commit on the PR, the second wave is retried once after its judge's ITERATE, and the
task page shows the tree of waves and subtasks.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness
from workers.controller.wavestate import RunStatus

SCENARIO = Path(__file__).parent / "scenarios" / "waves.yml"
DELAY_S = 2.0
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("e2e-waves"), workers=2) as harness:
        yield harness


def test_two_waves_of_two_subtasks_on_two_workers(bot: Harness) -> None:
    model = bot.script(SCENARIO, subtask_delay_s=DELAY_S)
    bot.open_issue(61, "Helpers on sections", "Add `in` and `get_int` to sections.")
    assert bot.label(61).status_code == 202
    record = bot.wait_finished(61, timeout=240)
    story = "\n".join(bot.timeline(61))
    assert model.errors == [] and model.done, story + bot.logs()
    state = record.workflow
    assert state.phase.value == "COMPLETE" and not state.controller_overrode, story
    walk = state.walk
    assert [w.status for w in walk.waves] == [RunStatus.COMPLETED] * 2
    assert [w.attempt for w in walk.waves] == [1, 2]

    flights = model.subtasks
    assert flights.overlapping(1) and flights.overlapping(2, 1) and flights.overlapping(2, 2), (
        flights.flights
    )

    assert bot.github is not None and record.pr_number is not None
    pull = bot.github.repo(REPO).pulls[record.pr_number]
    bare = bot.github.bare_path(REPO)
    log = subprocess.run(
        ["git", "log", "--format=%s", f"main..{pull.head}"],
        cwd=bare, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    waves = [line for line in log if line.startswith("Wave ")]
    assert waves == ["Wave 2: contains, get_int", "Wave 1: Tests for contains, Tests for get_int"]
    files = subprocess.run(
        ["git", "show", "--name-only", "--format=", pull.head],
        cwd=bare, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    tree = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", pull.head],
        cwd=bare, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert {"WAVE_1a.md", "WAVE_1b.md", "WAVE_2a.md", "WAVE_2b.md"} <= set(tree), files
    wave2 = subprocess.run(
        ["git", "show", f"{walk.waves[1].commit}:WAVE_2b.md"],
        cwd=bare, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "catches ValueError only" in wave2  # the retried attempt's commit is on the PR
