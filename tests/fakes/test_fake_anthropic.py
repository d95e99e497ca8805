"""The fake Anthropic server answers requests concurrently, as the real API does, and
records how many requests of one task are in flight at any moment."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes.anthropic import FakeAnthropic, Recorded, Reply, text

KEY = "k"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY) as server:
        server.task_of = lambda request: request.json["metadata"]["user_id"]
        yield server


def ask(fake: FakeAnthropic, task: str, timeout: float = 30) -> httpx.Response:
    body = {"model": "m", "max_tokens": 10, "metadata": {"user_id": task},
            "messages": [{"role": "user", "content": "hi"}]}  # fmt: skip
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    return httpx.post(f"{fake.base_url}/v1/messages", json=body, headers=headers, timeout=timeout)


def in_threads(*calls: tuple[FakeAnthropic, str]) -> dict[str, float]:
    """Send the requests at once; seconds until each answer, by task."""
    took: dict[str, float] = {}
    start = time.monotonic()

    def run(fake: FakeAnthropic, task: str) -> None:
        assert ask(fake, task).status_code == 200
        took[task] = time.monotonic() - start

    threads = [threading.Thread(target=run, args=call) for call in calls]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(30)
    return took


def test_a_slow_answer_does_not_hold_up_another(fake: FakeAnthropic) -> None:
    fake.latency = lambda request: 3.0 if request.json["metadata"]["user_id"] == "slow" else 0
    fake.push(text("late"), text("early"))
    took = in_threads((fake, "slow"), (fake, "fast"))
    assert took["fast"] < 1.5 < 3.0 <= took["slow"]
    assert fake.peak == {"slow": 1, "fast": 1}


def test_a_slow_reply_function_does_not_hold_up_another(fake: FakeAnthropic) -> None:
    def slowly(request: Recorded) -> Reply:
        time.sleep(3)
        return text("late")

    fake.push(slowly, text("early"))
    took = in_threads((fake, "slow"), (fake, "fast"))
    assert took["fast"] < 1.5 < 3.0 <= took["slow"]


def test_requests_of_one_task_in_flight_together_are_seen(fake: FakeAnthropic) -> None:
    fake.latency = lambda request: 1.0
    fake.push(text("a"), text("b"), text("c"))
    in_threads((fake, "t1"), (fake, "t1"), (fake, "t2"))
    assert fake.peak == {"t1": 2, "t2": 1}
    assert fake.in_flight() == {}
    assert all(call.ended is not None and not call.abandoned for call in fake.calls)


def test_a_request_whose_client_left_is_abandoned_unanswered(fake: FakeAnthropic) -> None:
    fake.latency = lambda request: 5.0
    fake.push(text("for whoever asks next"))
    with pytest.raises(httpx.ReadTimeout):
        ask(fake, "t1", timeout=0.5)
    deadline = time.monotonic() + 5
    while fake.in_flight() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.in_flight() == {} and fake.calls[0].abandoned
    assert len(fake.script) == 1  # the script did not move
    fake.latency = None
    answer = ask(fake, "t1")
    assert json.loads(answer.content)["content"][0]["text"] == "for whoever asks next"
