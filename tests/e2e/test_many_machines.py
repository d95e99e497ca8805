"""Any worker can run any step: two workers with nothing shared but Redis and git.

Two worker processes, each with its own workspace root (DATA_DIR) and home directory,
take the steps of one task in turn (each runs exactly one job and exits); the task's
outcome, PR, comments, labels and check run are the same as with one worker. The SIMPLE
path is used because its worker continues one conversation across IMPLEMENT and DOCS,
which lives in the task's state files.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue

from tests.e2e.harness import REPO, Harness, wait_until
from tests.e2e.timeline import timeline
from workers.tasks.record import TaskStatus

SCENARIO = Path(__file__).parent.parent / "scenarios" / "issue-22-simple.yml"
pytestmark = pytest.mark.slow
NUMBER = 22


def outcome(bot: Harness) -> dict[str, Any]:
    """Everything a person can see, without ids and times."""
    record = bot.wait_finished(NUMBER, timeout=5)
    assert bot.github is not None and record.pr_number is not None
    repo = bot.github.repo(REPO)
    pull = repo.pulls[record.pr_number]
    commits = subprocess.run(
        ["git", "rev-list", "--count", f"main..{pull.head}"],
        cwd=bot.github.bare_path(REPO), capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    return {
        "status": record.status,
        "phase": record.workflow.phase,
        "iterations": record.workflow.iterations,
        "overrode": record.workflow.controller_overrode,
        "draft": pull.draft,
        "commits": commits,
        "labels": sorted(repo.issue_labels.get(NUMBER, [])),
        "timeline": [line.replace(f"#{pull.number}", "#PR") for line in timeline(bot.github)],
    }


def one_worker(root: Path) -> dict[str, Any]:
    with Harness(root, workers=1) as bot:
        model = bot.script(SCENARIO)
        bot.open_issue(NUMBER, "Fix the typo", "Spelling error in the README.")
        assert bot.label(NUMBER).status_code == 202
        bot.wait_finished(NUMBER)
        assert model.done and model.errors == []
        return outcome(bot)


def queued(bot: Harness) -> int:
    assert bot.redis_server is not None
    client = redis.Redis.from_url(bot.redis_server.url)
    try:
        return len(Queue("agentium-e2e", connection=client))
    finally:
        client.close()


def ended(bot: Harness) -> bool:
    record = bot.record(NUMBER)
    return record is not None and record.status is not TaskStatus.ACTIVE


def next_job(bot: Harness) -> bool:
    """Wait for a queued job (True) or the task's end (False). The web's dispatcher turns
    the label's delivery into a job a moment after the 202, and a step queues the next."""
    wait_until(lambda: ended(bot) or queued(bot) > 0, 30, "a job or the end", bot.logs)
    return not ended(bot)


def alternating_workers(root: Path) -> tuple[dict[str, Any], list[str]]:
    with Harness(root, workers=0) as bot:
        model = bot.script(SCENARIO)
        bot.open_issue(NUMBER, "Fix the typo", "Spelling error in the README.")
        assert bot.label(NUMBER).status_code == 202
        machines = [
            {"DATA_DIR": str(root / name / "data"), "HOME": str(root / name / "home")}
            for name in ("machine-a", "machine-b")
        ]
        for machine in machines:
            Path(machine["HOME"]).mkdir(parents=True)
        ran: list[str] = []
        for turn in range(80):
            if not next_job(bot):
                break
            name = f"machine-{'ab'[turn % 2]}-{turn}"
            args = ["worker", "--burst", "--max-jobs", "1"]
            bot.start_process(name, args, machines[turn % 2]).wait(timeout=120)
            ran.append(name)
        assert model.done and model.errors == [], bot.logs()
        return outcome(bot), ran


def test_alternate_workers_end_like_one(tmp_path: Path) -> None:
    single = one_worker(tmp_path / "single")
    alternating, ran = alternating_workers(tmp_path / "alternating")
    assert len({name.split("-")[1] for name in ran}) == 2 and len(ran) > 6
    workspaces = [
        tmp_path / "alternating" / m / "data" / "workspaces" for m in ("machine-a", "machine-b")
    ]
    assert all(path.exists() for path in workspaces), "both machines had a checkout"
    environments = [
        list((tmp_path / "alternating" / m / "data" / "envs").glob("*/*/outcome.json"))
        for m in ("machine-a", "machine-b")
    ]
    assert all(len(found) == 1 for found in environments), "each set one up, once"
    assert alternating == single
    assert single["status"] is TaskStatus.FINISHED and single["draft"] is True
