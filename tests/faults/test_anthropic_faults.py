"""Anthropic answering 529 (overloaded) and 429 (rate limited, with retry-after).

A few errors: the adapter backs off and the call succeeds; the task is unaffected.
Errors past the retry budget of config/agents.yml (6 attempts, 1 s doubling: ~31 s of
waiting): the recovery ladder's doctor is asked at once (docs/design.md §9); with the
service still down it cannot be run either and the call is made again, while the doctor's
budgets last; then the task pauses BLOCKED with a comment saying why, and `/agentium
retry` resumes it with the same agent call.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.harness import REPO, Harness
from tests.fakes.anthropic import overloaded, rate_limited
from tests.faults.support import COMPLEX, assert_once, comments
from workers.controller.phases import Phase
from workers.defaults import load_default_agent_settings
from workers.tasks.record import TaskRecord, TaskStatus

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("fault-anthropic"), workers=2) as harness:
        yield harness


def paused(record: TaskRecord) -> bool:
    return record.workflow.paused is not None


def finished(record: TaskRecord) -> bool:
    return record.status is TaskStatus.FINISHED


def test_errors_then_success(bot: Harness) -> None:
    assert bot.llm is not None
    model = bot.script(COMPLEX)
    errors = [overloaded(), rate_limited(retry_after="1"), overloaded()]
    bot.llm.script.extendleft(reversed(errors))
    bot.open_issue(401, "Model busy", "Parse inline comments in iniconfig.")
    assert bot.label(401).status_code == 202
    record = bot.wait_for(401, finished, 240, "to finish")
    assert model.done and model.errors == [], bot.logs()
    assert record.workflow.phase is Phase.COMPLETE and not paused(record)
    assert_once(bot, record, {"IMPLEMENT": 1, "DOCS": 1})


def test_past_the_retry_budget_pauses_then_retry_resumes(bot: Harness) -> None:
    """The service stays down: the doctor is asked at once after the failed call (and
    fails too, so the call is made again) while its budgets allow; then the task pauses.
    The service back, `/agentium retry` resumes it."""
    assert bot.llm is not None and bot.github is not None
    attempts = load_default_agent_settings().retry.max_attempts
    model = bot.script(COMPLEX)
    down = [overloaded() for _ in range(attempts * 12)]  # more than the ladder will use
    bot.llm.script.extendleft(down)
    bot.open_issue(402, "Model down", "Parse inline comments in iniconfig.")
    assert bot.label(402).status_code == 202
    record = bot.wait_for(402, paused, 600, "to pause")
    assert record.status is TaskStatus.ACTIVE and model.calls == 0
    diagnoses = record.workflow.recovery.doctor
    assert 1 <= diagnoses.infrastructure <= 3, diagnoses  # asked, within its budgets
    unused = {id(reply) for reply in down}
    left = [reply for reply in bot.llm.script if id(reply) not in unused]
    bot.llm.script.clear()  # the service is back
    bot.llm.script.extend(left)
    said = "\n".join(comments(bot.github.repo(REPO), 402))
    assert "529" in said or "overloaded" in said.lower(), said
    assert "/agentium retry" in said, said
    assert bot.comment(402, "/agentium retry").status_code == 202
    record = bot.wait_for(402, finished, 240, "to finish")
    assert model.done and model.errors == [], bot.logs()
    assert record.workflow.phase is Phase.COMPLETE
    assert_once(bot, record, {"IMPLEMENT": 1, "DOCS": 1})
