"""The recovery ladder end to end (docs/design.md §9), real processes as in test_workflows:
a replan that gets a stuck phase through, and a question to a person answered by a comment.

The repository allows 8 IMPLEMENT iterations on the COMPLEX path, so the ladder's steps
come before the end of the phase's budget (where it would reduce the scope instead).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.environments import OFFLINE_SETTINGS
from tests.e2e.harness import REPO, Harness
from tests.e2e.model import role_of
from tests.fakes.anthropic import Recorded
from tests.fakes.github_state import Repo
from workers.controller.ladder import waiting_for_answer
from workers.controller.phases import Phase, Role
from workers.tasks.record import TaskRecord, TaskStatus

SCENARIOS = Path(__file__).parent / "scenarios"
SETTINGS = OFFLINE_SETTINGS + "limits:\n  COMPLEX:\n    IMPLEMENT: 8\n"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    files = {".github/agentium.yml": SETTINGS}
    with Harness(tmp_path_factory.mktemp("e2e-ladder"), workers=2, extra_files=files) as harness:
        yield harness


def comments(repo: Repo, number: int) -> list[str]:
    return [c.body for c in repo.comments.values() if c.number == number]


def requests(bot: Harness, role: Role, since: int = 0) -> list[Recorded]:
    assert bot.llm is not None
    return [r for r in bot.llm.requests[since:] if role_of(r) is role]


def briefing(request: Recorded) -> str:
    content = request.json["messages"][0]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def actions(record: TaskRecord) -> list[str]:
    return [step.action.value for step in record.workflow.recovery.steps]


def test_a_stuck_phase_is_replanned_and_then_passes(bot: Harness) -> None:
    assert bot.llm is not None
    since = len(bot.llm.requests)
    model = bot.script(SCENARIOS / "ladder-replan.yml")
    bot.open_issue(210, "Inline comments", "Values may be followed by `# comment`.")
    assert bot.label(210).status_code == 202
    record = bot.wait_finished(210, timeout=240)
    story = "\n".join(bot.timeline(210))
    assert model.errors == [] and model.done, story
    assert record.workflow.phase is Phase.COMPLETE, story
    assert record.workflow.iterations[Phase.IMPLEMENT] == 4
    assert actions(record) == ["escalate_model", "replan"]
    anchor = record.workflow.recovery.anchor
    assert anchor is not None and anchor.goal == "parse inline comments after values."

    [replanner] = requests(bot, Role.REPLANNER, since)
    assert "Hard constraint: the goal (change HOW, never WHAT)" in briefing(replanner)
    assert "values must not keep the trailing inline comment" in briefing(replanner)
    workers = [r for r in requests(bot, Role.WORKER, since) if "# Iteration 4" in briefing(r)]
    assert workers and "SPLIT-BEFORE-STRIP" in briefing(workers[0])
    models = {r.json["model"] for r in requests(bot, Role.WORKER, since)}
    assert "claude-opus-5-5" in models  # escalated after the second same failure

    assert bot.github is not None
    repo = bot.github.repo(REPO)
    [status] = [body for body in comments(repo, 210) if "### agentium status" in body]
    assert "| Recovery | escalate_model x1 · replan x1" in status
    metrics = httpx.get(f"http://127.0.0.1:{bot.port}/metrics", timeout=10).text
    assert 'agentium_recovery_total{action="replan"} 1.0' in metrics
    assert 'agentium_recovery_total{action="escalate_model"} 1.0' in metrics
    assert record.pr_number is not None and repo.pulls[record.pr_number].draft is False


def test_a_question_is_asked_and_a_reply_resumes_the_task(bot: Harness) -> None:
    assert bot.llm is not None
    model = bot.script(SCENARIOS / "ladder-question.yml")
    bot.open_issue(220, "CSV export", "Export the report as CSV for our customers.")
    assert bot.label(220).status_code == 202
    record = bot.wait_for(220, lambda r: waiting_for_answer(r.workflow), 240, "to ask")
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    [question] = [b for b in comments(repo, 220) if "agentium is stuck and has a question" in b]
    assert "the delimiter that customers expect" in question
    assert "agentium:blocked" in repo.issue_labels.get(220, [])
    assert record.status is TaskStatus.ACTIVE and record.workflow.phase is Phase.BLOCKED

    since = len(bot.llm.requests)
    assert bot.comment(220, "Just do something!", user="stranger").status_code == 202
    answer = "Use a semicolon (SEMICOLON-ANSWER); our customers open the files in Excel."
    assert bot.comment(220, answer).status_code == 202
    record = bot.wait_for(220, lambda r: r.status is TaskStatus.FINISHED, 240, "to finish")
    story = "\n".join(bot.timeline(220))
    assert model.errors == [] and model.done, story
    assert record.workflow.phase is Phase.COMPLETE, story
    assert actions(record) == ["escalate_model", "replan", "blocked_needs_human", "answered"]
    given = record.workflow.recovery.answer
    assert given is not None and given.text.startswith("@maintainer answered")  # not the stranger
    worker = requests(bot, Role.WORKER, since)[0]
    assert "SEMICOLON-ANSWER" in briefing(worker) and "a person's answer" in briefing(worker)
    assert "agentium:blocked" not in repo.issue_labels.get(220, [])
    assert record.pr_number is not None and repo.pulls[record.pr_number].draft is False
