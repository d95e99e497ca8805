"""The four example workflows (docs/design.md §1), end to end with real processes.

Each runs against the same bot (one web process, two workers, Redis, the fake GitHub and
the scripted model) on its own issue; what ends up on GitHub must match the example's story
as docs/design.md §1 decides it: the PR, the feedback comments per iteration, the labels, the
check run and whether the PR is ready or left draft with NOMERGE.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness
from workers.offline.scenario import load_scenario

SCENARIOS = Path(__file__).parent.parent / "scenarios"
pytestmark = pytest.mark.slow

SEEDS = {
    22: "issue-22-simple.yml",
    42: "issue-42-complex.yml",
    99: "issue-99-iterations.yml",
    77: "issue-77-auto-advance.yml",
}


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("e2e"), workers=2) as harness:
        yield harness


@pytest.mark.parametrize("number", sorted(SEEDS))
def test_seed_workflow(bot: Harness, number: int) -> None:
    scenario = load_scenario(SCENARIOS / SEEDS[number])
    expect = scenario.expect
    model = bot.script(SCENARIOS / SEEDS[number])
    bot.open_issue(number, f"Seed example #{number}", f"The seed's example workflow #{number}.")
    assert bot.label(number).status_code == 202
    record = bot.wait_finished(number)
    story = "\n".join(bot.timeline(number))
    assert model.errors == [] and model.done, story
    state = record.workflow
    assert state.phase.value == expect["final_phase"]
    assert state.path is not None and state.path.value == expect["path"]
    assert state.controller_overrode is expect["controller_overrode"]
    assert {p.value: n for p, n in state.iterations.items()} == expect["iterations"]

    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert record.pr_number is not None
    pull = repo.pulls[record.pr_number]
    assert f"Fixes #{number}" in pull.body
    assert len([p for p in repo.pulls.values() if p.head == pull.head]) == 1, "one PR"
    pr_comments = [c.body for c in repo.comments.values() if c.number == pull.number]
    issue_comments = [c.body for c in repo.comments.values() if c.number == number]
    for phase in ("IMPLEMENT", "DOCS"):
        count = sum(f"### {phase} iteration" in body for body in pr_comments)
        assert count == expect["iterations"][phase], story
    assert sum("### agentium status" in body for body in issue_comments) == 1, story
    assert sum("### Plan" in body for body in issue_comments) == 1, story
    nomerge = [body for body in pr_comments if "NOMERGE" in body]
    labels = set(repo.issue_labels.get(number, []))
    head = bot.github.branch_sha(REPO, pull.head)
    checks = [c for c in repo.check_runs.values() if c.get("head_sha") == head]
    assert "agentium:done" in labels and "agentium:working" not in labels, labels
    if expect["pr"] == "ready":
        assert pull.draft is False and not nomerge, story
        assert pull.reviewers == ["maintainer"]
        assert [c.get("conclusion") for c in checks] == ["success"]
    else:
        assert pull.draft is True and len(nomerge) == 1, story
        assert [c.get("conclusion") for c in checks] == ["action_required"]
