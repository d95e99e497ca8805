"""The engine's wave parts on the real Redis: the board, the subtask lease (the task lease's
kind, fencing the board), the jobs, the spend carried into the task's ledger
(docs/design.md §8)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import redis
from rq import Queue

from config import keys
from workers.agents.budget import load_ledger
from workers.controller.spend import Spend, Usage
from workers.engine.board import SubtaskRecord, SubtaskStatus, WaveBoard
from workers.engine.scheduling import (
    SUBTASK_JOB,
    schedule_join,
    schedule_subtask,
    subtask_job_alive,
    subtask_job_id,
)
from workers.engine.wavespend import add_to_ledger, difference, plus
from workers.tasks.lease import LeaseLost, TaskBusy, hold, is_held

KEY = "o/r#7"


def test_the_board_keeps_one_start_and_each_subtasks_run(redis_client: redis.Redis) -> None:
    board = WaveBoard(redis_client, KEY, 2, 1)
    assert board.set_start("aaa") == "aaa" and board.set_start("bbb") == "aaa"
    assert board.statuses(["2a", "2b"]) == {"2a": None, "2b": None}
    assert board.launch("2a") == 1 and board.launch("2b") == 1
    board.mark_running("2a")
    assert not board.all_ended(["2a", "2b"])
    spent = Spend().add(Usage(input_tokens=10, cost_usd=0.5), model="m", seconds=2.0)
    board.finish("2a", SubtaskStatus.COMPLETED, SubtaskRecord(text="did 2a", spend=spent), "P")
    board.finish("2b", SubtaskStatus.FAILED, SubtaskRecord(error="overloaded"))
    assert board.all_ended(["2a", "2b"])
    out = board.output("2a")
    assert (out.id, out.text, out.patch, out.error) == ("2a", "did 2a", "P", "")
    assert board.record("2a").spend == spent and board.output("2b").error == "overloaded"
    board.forget(["2b"])
    assert board.statuses(["2b"]) == {"2b": None} and board.launches("2b") == 1
    assert board.lost("2b") == 1 and board.lost("2b") == 2
    assert 0 < redis_client.ttl(board.key) <= 7 * 24 * 3600
    assert WaveBoard(redis_client, KEY, 2, 2).start() == ""  # each attempt its own board


def subtask(name: str) -> str:
    return keys.subtask_lease(KEY, 1, 1, name)


def test_the_subtask_lease_is_held_once_renewed_and_released(redis_client: redis.Redis) -> None:
    timing = {"ttl_s": 2.0, "renew_every_s": 0.5}
    with hold(redis_client, KEY, name=subtask("1a"), wait_s=0, **timing):
        with pytest.raises(TaskBusy), hold(redis_client, KEY, name=subtask("1a"), wait_s=0):
            pass
        with hold(redis_client, KEY, name=subtask("1b"), wait_s=0):  # its sibling runs
            assert is_held(redis_client, KEY, name=subtask("1b"))
        with hold(redis_client, KEY, wait_s=0):  # and a step of the task, the join's
            pass
        time.sleep(3)  # longer than the lease's expiry: renewed meanwhile
        assert is_held(redis_client, KEY, name=subtask("1a"))
    assert not is_held(redis_client, KEY, name=subtask("1a"))


def test_a_subtask_that_lost_its_lease_writes_nothing_on_the_board(
    redis_client: redis.Redis,
) -> None:
    board = WaveBoard(redis_client, KEY, 1, 1)
    board.launch("1a")
    with hold(redis_client, KEY, name=subtask("1a"), ttl_s=0.5, renew_every_s=None) as late:
        board.mark_running("1a", late)
        time.sleep(0.8)  # its worker stalled past the TTL; the subtask runs again elsewhere
        with hold(redis_client, KEY, name=subtask("1a"), wait_s=0) as current:
            board.finish(
                "1a", SubtaskStatus.COMPLETED, SubtaskRecord(text="new"), "P2", lease=current
            )
            with pytest.raises(LeaseLost):
                board.finish("1a", SubtaskStatus.FAILED, SubtaskRecord(text="old"), lease=late)
    assert board.statuses(["1a"]) == {"1a": SubtaskStatus.COMPLETED}
    assert board.output("1a").text == "new" and board.output("1a").patch == "P2"
    assert 0 < redis_client.ttl(board.key) <= keys.WAVE_BOARD_TTL_S


def test_subtask_jobs_have_ids_per_launch_and_the_join_is_asked_once(
    redis_client: redis.Redis,
) -> None:
    queue = Queue("t", connection=redis_client)
    assert schedule_subtask(queue, KEY, 1, 1, "1a", 1) is True
    assert schedule_subtask(queue, KEY, 1, 1, "1a", 1) is False
    assert schedule_subtask(queue, KEY, 1, 1, "1a", 2) is True
    job = queue.fetch_job(subtask_job_id(KEY, 1, 1, "1a", 1))
    assert job is not None and job.func_name == SUBTASK_JOB and job.args == (KEY, 1, 1, "1a")
    assert subtask_job_alive(queue, KEY, 1, 1, "1a", 1)
    assert not subtask_job_alive(queue, KEY, 1, 1, "1a", 3)
    job.delete()
    assert not subtask_job_alive(queue, KEY, 1, 1, "1a", 1)
    assert schedule_join(queue, KEY, 1, 1, 2) is True
    assert schedule_join(queue, KEY, 1, 1, 2) is False  # two subtasks ending at once
    assert schedule_join(queue, KEY, 1, 1, 3) is True  # a resumed wave ran one again


def test_spend_is_carried_once(tmp_path: Path) -> None:
    before = Spend().add(Usage(input_tokens=100, cost_usd=1.0), model="a", seconds=5)
    after = before.add(Usage(input_tokens=40, output_tokens=4, cost_usd=0.25), model="a")
    after = after.add(Usage(cache_read_tokens=7), model="b", seconds=1.5)
    delta = difference(after, before)
    assert (delta.input_tokens, delta.output_tokens, delta.cache_read_tokens) == (40, 4, 7)
    assert delta.calls == 2 and delta.seconds == 1.5 and delta.cost_usd == pytest.approx(0.25)
    assert plus(before, delta) == after
    ledger, marker = tmp_path / "spend.json", tmp_path / "w" / "spent-1a-1"
    ledger.write_text(before.model_dump_json())
    assert add_to_ledger(ledger, marker, delta) is True
    assert add_to_ledger(ledger, marker, delta) is False  # a join run twice counts once
    assert load_ledger(ledger) == after
