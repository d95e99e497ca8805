"""Redis stopped and started again (same port, same AOF data) while an agent call runs.

The web process, the workers and the task must all come through it: the task resumes
where it was and finishes once, and no process has to be restarted by hand. (The
receiver's side of a Redis outage, answering 503, is tests/bot/test_redis_down.py and
tests/test_processes.py::test_healthz_follows_redis.)
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.e2e.harness import Harness
from tests.faults.steady import ITERATIONS, SteadyModel
from tests.faults.support import assert_once
from workers.controller.phases import Phase
from workers.processes.embedded_redis import EmbeddedRedis
from workers.tasks.record import TaskStatus

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
DOWN_FOR_S = 8  # long enough for every process to notice
IMPLEMENT_WORKER = 3  # the request index: PLAN worker, assessor, then IMPLEMENT's worker


@pytest.fixture
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("fault-redis"), workers=2) as harness:
        yield harness


def restart_redis(bot: Harness, model: SteadyModel) -> None:
    """Stop Redis, let the held agent call return while it is down, start it again."""
    old = bot.redis_server
    assert old is not None
    old.stop()
    time.sleep(DOWN_FOR_S / 2)
    model.release()
    time.sleep(DOWN_FOR_S / 2)
    bot.redis_server = EmbeddedRedis(data_dir=old.data_dir, port=old.port).start()


def test_a_task_survives_a_redis_restart(bot: Harness) -> None:
    assert bot.llm is not None
    model = SteadyModel()
    model.hold_at = IMPLEMENT_WORKER
    bot.llm.push(*[model] * 400)
    bot.open_issue(201, "Redis restarts", "Parse inline comments in iniconfig.")
    assert bot.label(201).status_code == 202
    assert model.reached.wait(90), bot.logs()
    restart_redis(bot, model)
    record = bot.wait_for(201, lambda r: r.status is TaskStatus.FINISHED, 300, "to finish")
    assert record.workflow.phase is Phase.COMPLETE and model.unknown == 0, bot.logs()
    assert_once(bot, record, ITERATIONS)
    dead = [name for name, process in bot.processes.items() if process.poll() is not None]
    assert dead == [], bot.logs()
    # the bot still takes new work after the restart
    bot.open_issue(202, "After the restart", "Parse inline comments in iniconfig.")
    assert deliver_until_stored(bot, 202) == 202
    record = bot.wait_for(202, lambda r: r.status is TaskStatus.FINISHED, 300, "to finish")
    assert record.workflow.phase is Phase.COMPLETE, bot.logs()
    assert_once(bot, record, ITERATIONS)


def deliver_until_stored(bot: Harness, number: int) -> int:
    """The first delivery after a restart may meet a stale pooled connection and get the
    503 that makes GitHub show it as failed; it is sent again, as a redelivery would."""
    status = 0
    for _ in range(5):
        status = bot.label(number).status_code
        if status == 202:
            break
        time.sleep(1)
    return status
