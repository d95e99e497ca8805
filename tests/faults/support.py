"""What the fault tests share: starting a task and checking it happened exactly once."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.harness import REPO, Harness
from tests.e2e.model import ScriptedModel
from tests.fakes.github_state import Repo
from workers.tasks.record import TaskRecord

SCENARIOS = Path(__file__).parent.parent / "scenarios"
COMPLEX = SCENARIOS / "issue-42-complex.yml"  # PLAN 1, IMPLEMENT 1, DOCS 1; ready
IMPLEMENT_WORKER = 4  # the request index of IMPLEMENT's worker in COMPLEX


def start(bot: Harness, number: int, scenario: Path, hold: int | None = None) -> ScriptedModel:
    """Open and label an issue scripted by `scenario`; wait for request `hold` if given."""
    model = bot.script(scenario)
    model.hold_at = hold
    bot.open_issue(number, f"Task {number}", "Parse inline comments in iniconfig.")
    assert bot.label(number).status_code == 202
    if hold is not None:
        assert model.reached.wait(90), bot.logs()
    return model


def comments(repo: Repo, number: int | None) -> list[str]:
    return [c.body for c in repo.comments.values() if c.number == number]


def assert_once(bot: Harness, record: TaskRecord, iterations: dict[str, int]) -> None:
    """One PR for the task's branch, one feedback comment per iteration, one status comment."""
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert record.pr_number is not None, bot.logs()
    pull = repo.pulls[record.pr_number]
    assert len([p for p in repo.pulls.values() if p.head == pull.head]) == 1, "one PR"
    on_pr = comments(repo, record.pr_number)
    for phase, count in iterations.items():
        assert sum(f"### {phase} iteration" in body for body in on_pr) == count, on_pr
    on_issue = comments(repo, record.issue)
    assert sum("### agentium status" in body for body in on_issue) == 1, on_issue
    assert sum("### Plan" in body for body in on_issue) == 1, on_issue
