"""The task page's tree of waves and the status comment's checklist (docs/design.md §8)."""

from __future__ import annotations

import html

import redis
from starlette.testclient import TestClient

from bot.dashboard.model import TaskView
from bot.dashboard.waves import tree
from tests.controller.controller_support import drive, joined
from tests.controller.test_plan_check import SEED_PLAN
from tests.dashboard.stored import record, store
from workers.controller.outcomes import AssessorDone, JudgeDone, ReviewerDone, WorkerDone
from workers.controller.state import WorkflowState
from workers.engine.board import SubtaskRecord, SubtaskStatus, WaveBoard
from workers.github.bodies import status_body

ADVANCE = JudgeDone("ok\nAGENTIUM_EVAL: ADVANCE")
ITERATE = JudgeDone("no\nAGENTIUM_EVAL: ITERATE again")
START = [WorkerDone(SEED_PLAN), AssessorDone(None), ReviewerDone("r"), ADVANCE]


def in_wave_two() -> WorkflowState:
    """Wave 1 done, wave 2 retried once after an ITERATE and running again."""
    first = [joined(1, "1a", "1b"), ReviewerDone("good"), ADVANCE]
    second = [joined(2, "2a", "2b"), ReviewerDone("1. fix it"), ITERATE]
    return drive([*START, *first, *second]).state


def test_the_task_page_draws_the_tree_with_the_running_waves_live_status(
    redis_client: redis.Redis, local: TestClient
) -> None:
    task = record("octo/iniconfig", 61, in_wave_two())
    store(redis_client, task)
    board = WaveBoard(redis_client, task.key, 2, 2)
    board.finish("2a", SubtaskStatus.COMPLETED, SubtaskRecord(text="done"))
    board.mark_running("2b")
    page = html.unescape(local.get("/tasks/octo/iniconfig/61").text)
    expected = [
        "Wave 1 (test): ✓ done, commit c1-1",
        "  ├── ✓ [test] 1a Write User model tests",
        "  └── ✓ [test] 1b Write Post model tests",
        "Wave 2 (impl): ● running, attempt 2 of 2, 1 of 2 subtasks done",
        "  ├── ✓ [impl] 2a Implement User model",
        "  └── ● [impl] 2b Implement Post model (running)",
        "Wave 3 (test): ○ pending",
    ]
    shown = page.split('<pre class="waves">')[1].split("</pre>")[0]
    assert shown.splitlines()[:7] == expected
    assert "○ [test] 5 Write integration tests" in shown
    fragment = html.unescape(local.get("/tasks/octo/iniconfig/61?fragment=1").text)
    assert "● [impl] 2b Implement Post model (running)" in fragment
    assert "wave 2 · 2b" in fragment  # the timeline names each subtask's events


def test_a_stopped_walk_shows_what_was_not_run() -> None:
    fail_twice = [
        joined(1, "1a", "1b"), ReviewerDone("1. no"), ITERATE,
        joined(1, "1a", "1b", attempt=2), ReviewerDone("1. still no"), ITERATE,
    ]  # fmt: skip
    state = drive([*START, *fail_twice]).state
    view = TaskView.model_validate({"repo": "o/r", "issue": 1, "workflow": state.model_dump()})
    lines = tree(view.workflow.walk)
    assert lines[0].startswith("Wave 1 (test): ✗ failed after 2 attempt(s): the wave judge said")
    assert lines[3] == "Wave 2 (impl): ○ not run"
    assert lines[-1].startswith("Stopped: wave 1 failed 2 attempt(s)")


def test_the_status_comment_has_a_checklist_of_the_waves() -> None:
    body = status_body(in_wave_two())
    assert "**Plan waves**" in body
    assert (
        "- [x] Wave 1 (commit c1-1): [test] 1a Write User model tests, "
        "[test] 1b Write Post model tests"
    ) in body
    assert "- [ ] Wave 2 (running, attempt 2 of 2): [impl] 2a Implement User model" in body
    assert "- [ ] Wave 5: [test] 5 Write integration tests" in body
    assert "Plan waves" not in status_body(WorkflowState())
