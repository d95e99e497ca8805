"""People and faults end to end: commands, cancelling, review rounds, a killed worker.

Real processes as in test_workflows. The scripted model can hold one request, so a test
can act while an agent call is in flight (IMPLEMENT's worker is request 4 of #42's
scenario: PLAN worker, assessor, plan reviewer, judge, then the IMPLEMENT worker).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness, descendants, wait_until
from tests.e2e.model import ScriptedModel
from tests.fakes.github_state import Repo
from workers.controller.phases import Phase
from workers.gitops.workspace import workspace_path
from workers.tasks.inbox import CancelRequest
from workers.tasks.record import TaskRecord, TaskStatus

SCENARIOS = Path(__file__).parent.parent / "scenarios"
ROUND = Path(__file__).parent / "scenarios" / "review-round.yml"
IMPLEMENT_WORKER = 4
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("e2e-human"), workers=2) as harness:
        yield harness


def start(bot: Harness, number: int, scenario: Path, hold: int | None = None) -> ScriptedModel:
    model = bot.script(scenario)
    model.hold_at = hold
    bot.open_issue(number, f"Task {number}", "Parse inline comments in iniconfig.")
    assert bot.label(number).status_code == 202
    if hold is not None:
        assert model.reached.wait(60), bot.logs()
    return model


def comments(repo: Repo, number: int) -> list[str]:
    return [c.body for c in repo.comments.values() if c.number == number]


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def paused(record: TaskRecord) -> bool:
    return record.workflow.paused is not None


def test_stop_then_retry_then_status(bot: Harness) -> None:
    model = start(bot, 110, SCENARIOS / "issue-42-complex.yml", hold=IMPLEMENT_WORKER)
    assert bot.comment(110, "/agentium stop").status_code == 202
    model.release()
    record = bot.wait_for(110, paused, 60, "to pause")
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert any("stopped" in body.lower() for body in comments(repo, 110)), comments(repo, 110)
    assert record.pr_number is not None and repo.pulls[record.pr_number].draft is True
    calls = model.calls
    assert bot.comment(110, "/agentium retry").status_code == 202
    record = bot.wait_for(110, lambda r: r.status is TaskStatus.FINISHED, 90, "to finish")
    assert model.calls > calls and model.done and model.errors == []
    assert record.workflow.phase is Phase.COMPLETE
    assert repo.pulls[record.pr_number].draft is False
    assert bot.comment(110, "/agentium status").status_code == 202
    statuses = [body for body in comments(repo, 110) if "### agentium status" in body]
    assert len(statuses) == 1


def test_removing_the_label_cancels(bot: Harness) -> None:
    model = start(bot, 120, SCENARIOS / "issue-42-complex.yml", hold=IMPLEMENT_WORKER)
    assert bot.label(120, action="unlabeled").status_code == 202
    # The call is held, as a real one takes minutes: the step holding the task hears the
    # request from its inbox once the call ends (released at once, the rest of the task
    # would run in less time than the request waits for the lease).
    wait_until(lambda: any(isinstance(i, CancelRequest) for i in bot.inbox(120)), 30, "the cancel")
    model.release()
    record = bot.wait_for(120, lambda r: r.status is TaskStatus.CANCELLED, 60, "to cancel")
    assert "label 'agentium' removed" in (record.status_reason or "")
    calls = model.calls
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert any("stopped" in body.lower() for body in comments(repo, 120))
    if record.pr_number is not None:
        assert repo.pulls[record.pr_number].draft is True
    assert bot.label(120, action="unlabeled").status_code == 202  # again: nothing happens
    assert model.calls == calls


def test_a_review_starts_a_round_and_gets_one_reply(bot: Harness) -> None:
    model = start(bot, 130, ROUND)
    record = bot.wait_finished(130)
    assert record.status is TaskStatus.FINISHED and record.pr_number is not None
    pr = record.pr_number
    assert bot.review(130, pr, "Please handle a missing value.\n- raise ParseError").is_success
    record = bot.wait_for(
        130, lambda r: r.workflow.round == 1 and r.status is TaskStatus.FINISHED, 90, "round 1"
    )
    assert model.done and model.errors == [], bot.logs()
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    on_pr = comments(repo, pr)
    replies = [body for body in on_pr if "review" in body.lower() and "round" in body.lower()]
    assert len(replies) == 1, on_pr
    assert sum("### IMPLEMENT iteration" in body for body in on_pr) == 2
    assert repo.pulls[pr].draft is False
    assert bot.review(130, pr, "Looks good", state="approved").is_success  # nothing to do
    assert bot.wait_finished(130).workflow.round == 1


def test_a_worker_killed_mid_call_loses_only_that_call(bot: Harness) -> None:
    model = start(bot, 140, SCENARIOS / "issue-42-complex.yml", hold=IMPLEMENT_WORKER)
    workers = [n for n in bot.processes if n.startswith("worker")]
    horses = [pid for n in workers for pid in descendants(bot.processes[n].pid)]
    assert horses, "the held agent call runs in a work-horse"
    for name in workers:
        bot.kill(name)
    time.sleep(0.5)
    assert not [pid for pid in horses if alive(pid)]
    bot.start_worker("worker-after-crash")
    model.release()
    record = bot.wait_for(140, lambda r: r.status is TaskStatus.FINISHED, 240, "to finish")
    assert model.done and model.errors == [], bot.logs()
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert record.pr_number is not None
    pull = repo.pulls[record.pr_number]
    assert len([p for p in repo.pulls.values() if p.head == pull.head]) == 1
    on_pr = comments(repo, record.pr_number)
    for phase in ("IMPLEMENT", "DOCS"):
        assert sum(f"### {phase} iteration" in body for body in on_pr) == 1, on_pr
    assert pull.draft is False


def test_someone_without_write_access_is_refused_once(bot: Harness) -> None:
    model = bot.script(SCENARIOS / "issue-42-complex.yml")
    bot.open_issue(150, "From a stranger", "Please do it.")
    assert bot.label(150, user="stranger").status_code == 202
    record = bot.wait_for(150, lambda r: r.status is TaskStatus.CANCELLED, 60, "to refuse")
    assert "may not trigger" in (record.status_reason or "")
    assert model.calls == 0
    assert bot.github is not None
    assert len(comments(bot.github.repo(REPO), 150)) == 1
    # the clone made while the permission was checked is not left behind
    assert not workspace_path(bot.root / "data", REPO, 150).exists()


def test_a_worker_killed_during_the_first_call_still_starts_the_task_once(bot: Harness) -> None:
    """The start's effects and the baseline run beside the first PLAN call: a kill there
    loses at most them, and the next step makes up for them (workers/engine/opening.py)."""
    model = start(bot, 160, SCENARIOS / "issue-42-complex.yml", hold=0)
    for name in [n for n in bot.processes if n.startswith("worker")]:
        bot.kill(name)
    model.steps.appendleft(model.steps[0])  # the dead call still takes its scripted answer
    model.release()
    bot.start_worker("worker-after-first-call")
    record = bot.wait_for(160, lambda r: r.status is TaskStatus.FINISHED, 240, "to finish")
    assert model.errors == [], bot.logs()
    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert [content for _, content in repo.reactions.get(160, [])] == ["eyes"]
    assert sum("### agentium status" in body for body in comments(repo, 160)) == 1
    assert record.workflow.baseline is not None
    assert "agentium:working" not in repo.issue_labels.get(160, [])
