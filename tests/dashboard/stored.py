"""Tasks stored the way the workers store them: a real controller run, TaskStore, TaskMarks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import redis

from workers.controller.phases import Phase, Role
from workers.controller.spend import add_usage
from workers.controller.state import WorkflowState
from workers.github.marks import TaskMarks
from workers.offline.simulate import run_scenario
from workers.tasks.record import TaskRecord, TaskStatus
from workers.tasks.store import TaskStore

SCENARIOS = Path(__file__).parent.parent / "scenarios"
HOSTILE_TITLE = '<script>alert("owned")</script> & <b>bold</b>'
HOSTILE_EXCERPT = "<img src=x onerror=alert(1)> keep going"


class Call:
    """One model call's usage (the shape of workers.agents.llm.Usage)."""

    def __init__(self, tokens_in: int, tokens_out: int, usd: float) -> None:
        self.input_tokens, self.output_tokens = tokens_in, tokens_out
        self.cache_write_tokens, self.cache_read_tokens = 100, 400
        self.cost_usd = usd


def finished(name: str) -> WorkflowState:
    """The final state of a real controller run of ``tests/scenarios/NAME.yml``."""
    return run_scenario(SCENARIOS / f"{name}.yml").state


def in_progress() -> WorkflowState:
    """A COMPLEX task in IMPLEMENT iteration 2 of 5, judged ITERATE, with spend by model."""
    full = finished("issue-99-iterations")
    cut = next(
        i for i, step in enumerate(full.history)
        if step.phase is Phase.IMPLEMENT and step.iteration == 2 and step.role is Role.WORKER
    )  # fmt: skip
    history = list(full.history[:cut])
    last = history[-1].model_copy(update={"excerpt": HOSTILE_EXCERPT})
    history[-1] = last
    spend = add_usage(full.spend, Call(12_000, 3_000, 0.75), model="claude-sonnet")
    spend = add_usage(spend, Call(2_000, 500, 0.5), model="claude-opus")
    return full.model_copy(
        update={
            "phase": Phase.IMPLEMENT, "iteration": 2, "history": tuple(history), "spend": spend,
            "iterations": {Phase.PLAN: 2, Phase.IMPLEMENT: 2}, "pr_open": True,
        }
    )  # fmt: skip


def record(repo: str, issue: int, state: WorkflowState, **fields: object) -> TaskRecord:
    values: dict[str, object] = {
        "repo": repo, "issue": issue, "trigger_user": "octocat", "trigger_delivery": f"d-{issue}",
        "issue_title": f"Issue {issue}", "workflow": state,
        "created_at": datetime.now(UTC) - timedelta(hours=3),
    }  # fmt: skip
    values.update(fields)
    return TaskRecord.model_validate(values)


def store(client: redis.Redis, *records: TaskRecord) -> None:
    """Saved oldest first, so the last one is the newest."""
    tasks = TaskStore(client)
    for item in records:
        tasks.save(item)


def store_examples(client: redis.Redis) -> None:
    """Three tasks: finished with NOMERGE (PR and comments marked), blocked, in progress."""
    nomerge = record(
        "octo-org/widgets", 22, finished("issue-22-simple"), pr_number=150,
        status=TaskStatus.FINISHED, issue_title="Add a --verbose flag",
    )  # fmt: skip
    blocked = record(
        "octo-org/widgets", 31, finished("budget-exceeded"), status=TaskStatus.FINISHED
    )
    active = record(
        "Octo-Org/Gadgets", 7, in_progress(), pr_number=9, issue_title=HOSTILE_TITLE,
        created_at=datetime.now(UTC) - timedelta(minutes=5),
    )  # fmt: skip
    store(client, nomerge, blocked, active)
    marks = TaskMarks(client, nomerge.key)
    marks.set("pr:url", "https://github.com/octo-org/widgets/pull/150")
    marks.set("nomerge:url", "https://github.com/octo-org/widgets/pull/150#issuecomment-901")
    marks.set(
        "comment:22:status", "801 https://github.com/octo-org/widgets/issues/22#issuecomment-801"
    )
    marks.set("comment:150:feedback-r0-implement-1", "pending")
    marks.set("check:sha", "0123456789abcdef0123456789abcdef01234567")
