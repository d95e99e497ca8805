"""Agent calls that take minutes, end to end (docs/design.md §7).

Real processes as in test_workflows; the fake model answers chosen requests after 45 to
90 seconds (a setting of the fake server, tests/e2e/latency.py), longer than the task
lease's TTL. Meanwhile commands and a review arrive and the sweep runs every 5 seconds
with a 5-second threshold. The lease keeps the task in one holder's hands: the fake never
sees two calls of one task in flight, no job fails, every GitHub effect happens once and
the task ends as its scenario says. A worker SIGKILLed during a long call hands the task
on within a minute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.registry import FinishedJobRegistry

from tests.e2e.harness import QUEUE, REPO, Harness
from tests.e2e.latency import Latencies
from tests.fakes.github_state import Repo
from workers.controller.phases import Phase
from workers.tasks.record import TaskStatus

SCENARIOS = Path(__file__).parent.parent / "scenarios"
ROUND = Path(__file__).parent / "scenarios" / "review-round.yml"
SWEEP_S = 5
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    settings = {"SWEEP_EVERY_S": str(SWEEP_S), "SWEEP_STALE_AFTER_S": str(SWEEP_S)}
    root = tmp_path_factory.mktemp("e2e-long")
    with Harness(root, workers=2, settings=settings) as harness:
        yield harness


def slow(bot: Harness, issue: int, seconds_by_request: dict[int, float]) -> Latencies:
    assert bot.llm is not None
    latency = Latencies()
    latency.plan(issue, seconds_by_request)
    bot.llm.latency = latency
    return latency


def wait_in_flight(bot: Harness, latency: Latencies, issue: int, index: int) -> float:
    """Until the issue's request `index` is being answered; returns when that was seen."""
    assert bot.llm is not None
    deadline = time.monotonic() + 120
    while not (latency.seen[issue] > index and bot.llm.in_flight().get(issue) == 1):
        assert time.monotonic() < deadline, bot.logs()
        time.sleep(0.1)
    return time.time()


def comments(repo: Repo, number: int) -> list[str]:
    return [c.body for c in repo.comments.values() if c.number == number]


def sweeps(bot: Harness) -> list[int]:
    """What each finished sweep job re-enqueued."""
    assert bot.redis_server is not None
    client = redis.Redis.from_url(bot.redis_server.url)
    try:
        queue = Queue(QUEUE, connection=client)
        found = []
        for job_id in FinishedJobRegistry(queue=queue).get_job_ids():
            job = queue.fetch_job(job_id)
            if job is not None and job_id.startswith("sweep-"):
                found.append(int(job.return_value() or 0))
        return found
    finally:
        client.close()


def test_commands_and_a_review_during_long_calls(bot: Harness) -> None:
    number = 170
    latency = slow(bot, number, {4: 50.0, 10: 75.0})  # IMPLEMENT's worker, DOCS' reviewer
    model = bot.script(ROUND)
    bot.open_issue(number, "Long calls", "Parse inline comments in iniconfig.")
    assert bot.label(number).status_code == 202
    wait_in_flight(bot, latency, number, 4)
    assert bot.comment(number, "/agentium status").status_code == 202
    wait_in_flight(bot, latency, number, 10)
    record = bot.record(number)
    assert record is not None and record.pr_number is not None
    pr = record.pr_number
    assert bot.review(number, pr, "Please handle a missing value.").is_success
    assert bot.comment(number, "/agentium status").status_code == 202
    record = bot.wait_for(
        number, lambda r: r.workflow.round == 1 and r.status is TaskStatus.FINISHED, 300, "round 1"
    )
    assert model.done and model.errors == [], bot.logs()
    assert bot.llm is not None and bot.llm.peak[number] == 1, bot.llm.peak
    assert bot.failed_jobs() == [], bot.logs()
    ran = sweeps(bot)
    assert len(ran) >= 10 and sum(ran) == 0, ran  # it ran during the calls, took nothing

    assert bot.github is not None
    repo = bot.github.repo(REPO)
    assert record.workflow.phase is Phase.COMPLETE and record.status is TaskStatus.FINISHED
    pull = repo.pulls[pr]
    assert len([p for p in repo.pulls.values() if p.head == pull.head]) == 1
    assert pull.draft is False
    on_issue, on_pr = comments(repo, number), comments(repo, pr)
    assert sum("### agentium status" in body for body in on_issue) == 1, on_issue
    assert sum("### Plan" in body for body in on_issue) == 1, on_issue
    for phase in ("IMPLEMENT", "DOCS"):
        assert sum(f"### {phase} iteration" in body for body in on_pr) == 2, on_pr
    replies = [body for body in on_pr if "review" in body.lower() and "round" in body.lower()]
    assert len(replies) == 1, on_pr
    assert not [body for body in on_issue + on_pr if "blocked" in body.lower()]
    labels = set(repo.issue_labels.get(number, []))
    assert labels == {"agentium:done"}, labels
    head = bot.github.branch_sha(REPO, pull.head)
    verdicts = [c.get("conclusion") for c in repo.check_runs.values() if c["head_sha"] == head]
    assert verdicts == ["success"], repo.check_runs


def test_a_worker_killed_during_a_long_call_hands_the_task_on(bot: Harness) -> None:
    number = 171
    latency = slow(bot, number, {4: 90.0})
    model = bot.script(SCENARIOS / "issue-42-complex.yml")
    bot.open_issue(number, "Killed mid-call", "Parse inline comments in iniconfig.")
    assert bot.label(number).status_code == 202
    wait_in_flight(bot, latency, number, 4)
    time.sleep(5)  # well into the call
    for name in [n for n in bot.processes if n.startswith("worker")]:
        bot.kill(name)
    killed = time.time()
    bot.start_worker("worker-after-kill")
    assert bot.llm is not None
    llm = bot.llm
    after = [c.started for c in llm.calls if c.task == number and c.started > killed]
    deadline = time.monotonic() + 120
    while not after:  # the call made again, by the new worker
        assert time.monotonic() < deadline, bot.logs()
        time.sleep(0.1)
        after = [c.started for c in llm.calls if c.task == number and c.started > killed]
    assert after[0] - killed < 60, f"handed on after {after[0] - killed:.0f} s"
    record = bot.wait_for(number, lambda r: r.status is TaskStatus.FINISHED, 240, "to finish")
    assert model.done and model.errors == [], bot.logs()
    assert bot.llm.peak[number] == 1, bot.llm.peak
    assert [c.abandoned for c in bot.llm.calls if c.task == number].count(True) == 1
    assert bot.failed_jobs() == [], bot.logs()
    assert bot.github is not None and record.pr_number is not None
    repo = bot.github.repo(REPO)
    pull = repo.pulls[record.pr_number]
    assert len([p for p in repo.pulls.values() if p.head == pull.head]) == 1
    on_pr = comments(repo, record.pr_number)
    for phase in ("IMPLEMENT", "DOCS"):
        assert sum(f"### {phase} iteration" in body for body in on_pr) == 1, on_pr
    assert pull.draft is False and record.workflow.phase is Phase.COMPLETE
