"""Workers SIGKILLed (with their work-horses) at random moments, 20 times.

Several tasks run at once on three workers; every second or two a busy worker running a
step of a task is killed, as a machine dying would, and a fresh worker takes its place.
Each task is killed at most once per step, so its step job has retries left. Recovery is
RQ's: the dead worker's job is found abandoned once its heartbeat lapses (~30 s, see
workers/processes/worker_loop.py) and retried; the task lock has expired by then. Every task must
complete exactly once: one PR, one comment per iteration, one status and plan comment.
The model answers by role (tests/faults/steady.py), so a repeated agent call is harmless.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
import redis
from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job

from tests.e2e.harness import Harness
from tests.faults.steady import ITERATIONS, SteadyModel
from tests.faults.support import assert_once
from workers.controller.phases import Phase
from workers.engine.scheduling import STEP_JOB
from workers.tasks.record import TaskRecord, TaskStatus
from workers.tasks.store import TaskStore

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
KILLS, WORKERS, MAX_TASKS, AT_ONCE, FIRST = 20, 3, 40, 4, 501


@pytest.fixture
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("fault-kill"), workers=WORKERS) as harness:
        yield harness


def busy_steps(bot: Harness, client: redis.Redis) -> list[tuple[int, str]]:
    """(worker pid, task key) for every worker running a step job right now."""
    found = []
    queue = Queue(bot.env()["QUEUE_NAME"], connection=client)
    for worker in Worker.all(queue=queue):
        job_id = worker.get_current_job_id()
        if job_id is None:
            continue
        try:
            job = Job.fetch(job_id, connection=client)
        except NoSuchJobError:  # finished and gone meanwhile
            continue
        if job.func_name == STEP_JOB and job.args:
            found.append((worker.pid, str(job.args[0])))
    return found


class Killer:
    def __init__(self, bot: Harness, client: redis.Redis) -> None:
        self.bot, self.client, self.store = bot, client, TaskStore(client)
        self.kills = 0
        self.killed_at: dict[str, int] = {}  # task key -> its step counter at the last kill
        self.rng = random.Random(7)

    def try_once(self) -> bool:
        for pid, key in busy_steps(self.bot, self.client):
            record = self.store.get(key)
            if record is None or self.killed_at.get(key) == record.steps:
                continue
            name = next((n for n, p in self.bot.processes.items() if p.pid == pid), None)
            if name is None:
                continue
            self.bot.kill(name)
            self.bot.start_worker(f"worker-k{self.kills}")
            self.killed_at[key] = record.steps
            self.kills += 1
            return True
        return False


def start_task(bot: Harness, number: int) -> None:
    bot.open_issue(number, f"Killed {number}", "Parse inline comments in iniconfig.")
    assert bot.label(number).status_code == 202


def done(record: TaskRecord | None) -> bool:
    return record is not None and record.status is not TaskStatus.ACTIVE


def test_every_task_completes_once_despite_20_kills(bot: Harness) -> None:
    assert bot.llm is not None and bot.redis_server is not None
    model = SteadyModel()
    bot.llm.push(*[model] * 5000)
    client = redis.Redis.from_url(bot.redis_server.url)
    killer, numbers = Killer(bot, client), list(range(FIRST, FIRST + AT_ONCE))
    for number in numbers:
        start_task(bot, number)
    deadline = time.monotonic() + 900
    while killer.kills < KILLS and time.monotonic() < deadline:
        time.sleep(killer.rng.uniform(0.3, 2.0))
        killer.try_once()
        running = sum(not done(bot.record(n)) for n in numbers)
        if running < AT_ONCE and len(numbers) < MAX_TASKS:
            numbers.append(FIRST + len(numbers))
            start_task(bot, numbers[-1])
    assert killer.kills == KILLS, bot.logs()
    for number in numbers:
        record = bot.wait_for(number, done, 600, "to finish after the kills")
        assert record.status is TaskStatus.FINISHED, (number, record.status_reason)
        assert record.workflow.phase is Phase.COMPLETE, number
        assert_once(bot, record, ITERATIONS)
    assert model.unknown == 0
    client.close()
