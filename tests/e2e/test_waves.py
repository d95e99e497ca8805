"""Waves end to end (docs/design.md §8): real processes, two workers, a slow fake model.

A COMPLEX plan of 2 waves of 2 subtasks: the subtasks of each wave are in flight at the same
time (the fake model records when each call arrived and was answered), each wave lands as
one commit on the PR, the second wave is retried once after its judge's ITERATE, and the
task page shows the tree of waves and subtasks.
"""

from __future__ import annotations

import html
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
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


class TreeWatcher(threading.Thread):
    """Reads the task page's tree of waves every 0.2 s while the task runs."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.seen, self.stop = url, [], threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            page = httpx.get(self.url, timeout=5)
            if page.status_code == 200 and '<pre class="waves">' in page.text:
                shown = html.unescape(page.text.split('<pre class="waves">')[1].split("</pre>")[0])
                if not self.seen or self.seen[-1] != shown:
                    self.seen.append(shown)


def test_two_waves_of_two_subtasks_on_two_workers(bot: Harness) -> None:
    model = bot.script(SCENARIO, subtask_delay_s=DELAY_S)
    bot.open_issue(61, "Helpers on sections", "Add `in` and `get_int` to sections.")
    watcher = TreeWatcher(f"http://127.0.0.1:{bot.port}/tasks/octo/iniconfig/61")
    watcher.start()
    assert bot.label(61).status_code == 202
    record = bot.wait_finished(61, timeout=240)
    watcher.stop.set()
    watcher.join(timeout=10)
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

    running = [t for t in watcher.seen if "● [test] 1a Tests for contains (running)" in t]
    assert running and "● [test] 1b Tests for get_int (running)" in running[0], watcher.seen
    assert any("attempt 2 of 2" in t for t in watcher.seen), watcher.seen
    final = watcher.seen[-1].splitlines()
    assert final == [
        f"Wave 1 (test): ✓ done, commit {walk.waves[0].commit[:12]}",
        "  ├── ✓ [test] 1a Tests for contains",
        "  └── ✓ [test] 1b Tests for get_int",
        f"Wave 2 (impl): ✓ done after 2 attempts, commit {walk.waves[1].commit[:12]}",
        "  ├── ✓ [impl] 2a contains",
        "  └── ✓ [impl] 2b get_int",
    ]
