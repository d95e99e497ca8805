"""A worker killed in the middle of a wave's subtask (docs/design.md §8).

Two workers run the two subtasks of wave 1 at once; the fake model answers them slowly.
While both calls are in flight, the worker running subtask 1a is SIGKILLed with its
work-horse, as a machine dying would, and a fresh worker joins. RQ finds the dead job
abandoned once its heartbeat lapses and runs it again; the subtask's lease, no longer
renewed, has lapsed by then, so the subtask runs again (one model call lost) and the wave
is joined once: one commit per wave on the PR, the task complete and ready.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from tests.e2e.harness import REPO, Harness
from workers.controller.wavestate import RunStatus
from workers.engine.scheduling import SUBTASK_JOB

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
SCENARIO = Path(__file__).parent.parent / "e2e" / "scenarios" / "waves.yml"


@pytest.fixture
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tmp_path_factory.mktemp("fault-wave"), workers=2) as harness:
        yield harness


def worker_running(bot: Harness, client: redis.Redis, subtask: str) -> str | None:
    queue = Queue(bot.env()["QUEUE_NAME"], connection=client)
    for worker in Worker.all(queue=queue):
        job = worker.get_current_job()
        if job is not None and job.func_name == SUBTASK_JOB and job.args[3] == subtask:
            return next((n for n, p in bot.processes.items() if p.pid == worker.pid), None)
    return None


def test_a_worker_killed_mid_subtask_loses_one_call_and_the_wave_joins_once(
    bot: Harness,
) -> None:
    assert bot.redis_server is not None and bot.github is not None
    model = bot.script(SCENARIO, subtask_delay_s=6.0)
    bot.open_issue(71, "Helpers on sections", "Add `in` and `get_int` to sections.")
    assert bot.label(71).status_code == 202
    client = redis.Redis.from_url(bot.redis_server.url)
    deadline, victim = time.monotonic() + 90, None
    while victim is None and time.monotonic() < deadline:
        asked = {
            f.subtask for f in model.subtasks.flights if f.wave == 1 and f.answered > f.arrived
        }
        if {"1a", "1b"} <= asked:  # both final answers are being held: both in flight
            victim = worker_running(bot, client, "1a")
        time.sleep(0.1)
    assert victim is not None, bot.logs()
    bot.kill(victim)
    bot.start_worker("worker-fresh")
    record = bot.wait_finished(71, timeout=400)
    client.close()
    assert model.errors == [] and model.done, bot.logs()
    assert model.subtasks.repeats >= 1  # the killed subtask's call was made again
    state = record.workflow
    assert state.phase.value == "COMPLETE" and not state.controller_overrode
    assert [w.status for w in state.walk.waves] == [RunStatus.COMPLETED] * 2
    pull = bot.github.repo(REPO).pulls[record.pr_number or 0]
    log = subprocess.run(
        ["git", "log", "--format=%s", f"main..{pull.head}"],
        cwd=bot.github.bare_path(REPO), capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert [line for line in log if line.startswith("Wave ")] == [
        "Wave 2: contains, get_int",
        "Wave 1: Tests for contains, Tests for get_int",
    ]
    joins = [h for h in state.history if h.event == "joined" and h.wave == 1]
    assert len(joins) == 1  # the wave was joined once
