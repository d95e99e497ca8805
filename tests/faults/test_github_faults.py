"""GitHub answering 502 or 403-with-retry-after on a third of its API requests.

The bot's GitHub client waits (backoff, or what `retry-after` says) and tries again; the
task completes and nothing is written twice: one PR, one comment per iteration, one
status comment, one plan comment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness
from tests.fakes.github_state import Fault
from tests.faults.support import COMPLEX, assert_once, comments, start
from workers.github.client import ClientOptions
from workers.tasks.record import TaskStatus

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
SCENARIOS = Path(__file__).parent.parent / "e2e" / "scenarios"
PLAN_JUDGE = 3  # the request of PLAN's judge: plan worker, assessor, reviewer, judge


@dataclass
class Tally:
    seen: int = 0


@dataclass
class OneIn(Fault):
    """Fails the API requests whose running number (shared `tally`) is `phase` mod `every`.

    The first of a pair of these counts each request; the second reads the same count."""

    tally: Tally = field(default_factory=Tally)
    every: int = 6
    phase: int = 0
    counts: bool = False

    def matches(self, method: str, path: str) -> bool:
        if not super().matches(method, path):
            return False
        if self.counts:
            self.tally.seen += 1
        return self.tally.seen % self.every == self.phase


@pytest.fixture
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("fault-github"), workers=2) as harness:
        yield harness


def test_a_third_of_github_requests_fail(bot: Harness) -> None:
    assert bot.github is not None
    tally, forever = Tally(), 1_000_000
    bad_gateway = OneIn(502, forever, tally=tally, phase=0, counts=True)
    limited = OneIn(403, forever, headers={"retry-after": "1"}, tally=tally, phase=3)
    limited.message = "You have exceeded a secondary rate limit."
    spare = OneIn(502, forever, tally=tally, phase=5)  # with the two above: 1 in 3
    bot.github.faults += [bad_gateway, limited, spare]
    model = start(bot, 301, COMPLEX)
    record = bot.wait_for(301, lambda r: r.status is TaskStatus.FINISHED, 300, "to finish")
    assert model.done and model.errors == [], bot.logs()
    assert_once(bot, record, {"IMPLEMENT": 1, "DOCS": 1})
    answers = [r.status for r in bot.github.api_requests()]
    failed = sum(status in (502, 403) for status in answers)
    assert failed >= len(answers) // 4, (failed, len(answers))
    assert 403 in answers and 502 in answers


def test_a_comment_post_failing_past_the_retries_waits_with_the_task(bot: Harness) -> None:
    """GitHub answers 502 to every attempt (the client's retries included) at posting the
    comments of PLAN's end: the judge's work is kept, the doctor is asked at once, and the
    comments waiting with the task are posted, once, when GitHub answers again."""
    assert bot.github is not None
    scenario = SCENARIOS / "effects-github-down.yml"
    model = start(bot, 311, scenario, hold=PLAN_JUDGE)
    attempts = ClientOptions().max_retries + 1  # the first try and every retry
    bot.github.faults.append(Fault(502, attempts, method="POST", path="/issues/311/comments"))
    model.release()
    record = bot.wait_for(311, lambda r: r.status is TaskStatus.FINISHED, 300, "to finish")
    assert model.done and model.errors == [], bot.logs()  # the judge was asked once
    assert record.workflow.recovery.doctor.infrastructure == 1
    said = [h.summary for h in record.workflow.history]
    assert any("GitHub API call failed (1 in a row)" in s for s in said), said
    assert not record.pending_effects
    assert_once(bot, record, {"IMPLEMENT": 1, "DOCS": 1})
    assert sum("### PLAN iteration" in c for c in comments(bot.github.repo(REPO), 311)) == 1
