"""A push the remote refuses (docs/design.md §9), real processes and real git: the bare
repository behind the fake GitHub has a ``pre-receive`` hook that declines every push.

The worker's commit stays in the checkout and the push waits with the task; the state is
saved, so the worker is not run again; the doctor is asked at once. Once the hook lets
pushes through, the next step pushes the waiting commit, opens the PR and carries on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import REPO, Harness
from tests.fakes import git_http
from tests.faults.support import assert_once, start
from workers.controller.failures import FailureKind
from workers.controller.phases import Phase
from workers.tasks.record import TaskStatus

SCENARIO = Path(__file__).parent / "scenarios" / "effects-push-refused.yml"
DOCTOR_REQUEST = 6  # plan worker, assessor, reviewer, judge, worker (edit, final), doctor
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("e2e-effects"), workers=2) as harness:
        yield harness


def test_a_refused_push_waits_with_the_task_and_goes_through_later(bot: Harness) -> None:
    assert bot.github is not None
    hook = bot.github.bare_path(REPO) / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'declined by the test hook' >&2\nexit 1\n")
    hook.chmod(0o755)
    model = start(bot, 501, SCENARIO, hold=DOCTOR_REQUEST)  # the push was refused
    record = bot.record(501)
    assert record is not None and record.pending_effects, bot.logs()
    assert record.local_head is not None and record.head_sha != record.local_head
    assert record.workflow.recovery.doctor.infrastructure == 1
    [failure] = [f for f in record.workflow.recovery.failures if f.kind is FailureKind.INFRA]
    assert "declined by the test hook" in failure.text
    assert record.pr_number is None and not bot.github.repo(REPO).pulls
    hook.unlink()
    model.release()
    done = bot.wait_for(501, lambda r: r.status is TaskStatus.FINISHED, 300, "to finish")
    assert model.done and model.errors == [], bot.logs()  # the worker ran once
    assert done.workflow.phase is Phase.COMPLETE and not done.pending_effects
    assert done.local_head is None
    pushed = git_http.rev_parse(bot.github.bare_path(REPO), "refs/heads/agentium/issue-501")
    assert pushed == done.head_sha
    assert_once(bot, done, {"IMPLEMENT": 1, "DOCS": 1})
    said = [h.summary for h in done.workflow.history]
    assert any("push to the task branch failed (1 in a row)" in s for s in said), said
