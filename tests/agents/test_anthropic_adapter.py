"""The adapter against the fake server: the real SDK parses real response shapes."""

from __future__ import annotations

import json

import pytest

from tests.agents.conftest import Sleeps
from tests.fakes.anthropic import (
    CORPUS,
    FakeAnthropic,
    Reply,
    bad_request,
    corpus,
    overloaded,
    rate_limited,
    text,
    tool_use,
)
from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.llm import (
    LLMError,
    LLMRequest,
    Message,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from workers.agents.retry import ModelRetryPolicy, retry_after
from workers.agents.settings import RetrySettings

TOOL = ToolSpec(name="read_file", description="Read a file", input_schema={"type": "object"})


def request(*messages: Message) -> LLMRequest:
    return LLMRequest(
        model="claude-sonnet-5-5",
        system="You are a careful engineer.",
        tools=(TOOL,),
        messages=messages or (Message.user("hello"),),
        cache_marks=((0, -1),),
    )


def test_text_answer_and_usage_priced(fake: FakeAnthropic, adapter: AnthropicAdapter) -> None:
    usage = {"input_tokens": 1000, "output_tokens": 100}
    cached = {"cache_creation_input_tokens": 2000, "cache_read_input_tokens": 4000}
    fake.push(Reply(**{**vars(text("All done.")), "usage": usage | cached}))
    response = adapter.complete(request())
    assert response.message.text() == "All done."
    assert response.stop_reason is StopReason.END_TURN
    assert response.usage.input_tokens == 1000
    assert response.usage.cache_write_tokens == 2000
    assert response.usage.cache_read_tokens == 4000
    # claude-sonnet-5-5: 2.00 in, 10.00 out, 2.50 cache write, 0.20 cache read per MTok
    expected = (1000 * 2.0 + 100 * 10.0 + 2000 * 2.5 + 4000 * 0.2) / 1_000_000
    assert response.usage.cost_usd == pytest.approx(expected)


def test_request_carries_cache_control_and_tool_blocks(
    fake: FakeAnthropic, adapter: AnthropicAdapter
) -> None:
    fake.push(tool_use("read_file", {"path": "README.rst"}, say="Let me look."), text("ok"))
    first = adapter.complete(request())
    call = first.message.tool_calls()[0]
    assert (call.name, call.input) == ("read_file", {"path": "README.rst"})
    assert first.message.text() == "Let me look."
    result = Message(role="user", content=(ToolResult(tool_use_id=call.id, content="text"),))
    adapter.complete(request(Message.user("hello"), first.message, result))
    body = fake.requests[1].json
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["name"] == "read_file"
    assert body["messages"][1]["content"][1]["type"] == "tool_use"
    assert body["messages"][2]["content"][0]["tool_use_id"] == call.id
    assert "cache_control" in body["messages"][0]["content"][-1]
    assert fake.requests[0].headers["authorization"] == f"Bearer {fake.api_key}"


def test_429_retry_after_is_honoured(
    fake: FakeAnthropic, adapter: AnthropicAdapter, sleeps: Sleeps
) -> None:
    fake.push(rate_limited(retry_after="7"), text("ok"))
    response = adapter.complete(request())
    assert response.attempts == 2
    assert sleeps == [7.0]
    assert fake.requests[0].json == fake.requests[1].json


def test_529_overloaded_backs_off_then_succeeds(
    fake: FakeAnthropic, adapter: AnthropicAdapter, sleeps: Sleeps
) -> None:
    fake.push(overloaded(), overloaded(), text("ok"))
    assert adapter.complete(request()).message.text() == "ok"
    assert sleeps == [0.5, 1.0]


def test_400_is_not_retried(fake: FakeAnthropic, adapter: AnthropicAdapter, sleeps: Sleeps) -> None:
    fake.push(bad_request())
    with pytest.raises(LLMError) as caught:
        adapter.complete(request())
    assert caught.value.status == 400
    assert not caught.value.retryable
    assert "invalid_request_error" in str(caught.value)
    assert sleeps == []
    assert len(fake.requests) == 1


def test_retries_stop_at_the_attempt_budget(
    fake: FakeAnthropic, adapter: AnthropicAdapter, sleeps: Sleeps
) -> None:
    fake.push(*[overloaded() for _ in range(4)])
    with pytest.raises(LLMError) as caught:
        adapter.complete(request())
    assert caught.value.status == 529
    assert caught.value.retryable
    assert len(fake.requests) == 4
    assert len(sleeps) == 3
    assert fake.api_key not in str(caught.value)


def test_retries_stop_at_the_wait_budget(
    fake: FakeAnthropic, adapter: AnthropicAdapter, sleeps: Sleeps
) -> None:
    adapter._retry = ModelRetryPolicy(RetrySettings(max_total_wait=10), random=lambda: 0.0)
    fake.push(rate_limited(retry_after="6"), rate_limited(retry_after="6"))
    with pytest.raises(LLMError):
        adapter.complete(request())
    assert sleeps == [6.0]


@pytest.mark.parametrize(
    "case", json.loads((CORPUS / "retry_after_vectors.json").read_text())["cases"]
)
def test_retry_after_parsing_follows_the_sdk_vectors(case: dict[str, object]) -> None:
    """Where the SDK honours a value (0 < s <= 60) we honour the same number of seconds."""
    vectors = corpus("retry_after_vectors.json")
    value = retry_after({"retry-after": str(case["retry_after"])}, float(vectors["now_epoch"]))
    expected = float(str(case["expected_timeout_s"]))
    if case["retry_after"] and value is not None and 0 < value <= 60:
        assert value == pytest.approx(expected)


def test_opaque_blocks_travel_back_unchanged(
    fake: FakeAnthropic, adapter: AnthropicAdapter
) -> None:
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "c2ln"}
    reply = text("answer")
    fake.push(Reply(200, {**reply.body, "content": [thinking, *reply.body["content"]]}))
    answer = adapter.complete(request()).message
    fake.push(text("again"))
    adapter.complete(request(Message.user("q"), answer, Message.user("more")))
    assert fake.requests[1].json["messages"][1]["content"][0] == thinking
    assert isinstance(answer.content[1], Text)
    assert not any(isinstance(b, ToolCall) for b in answer.content)


def test_the_stable_breakpoints_get_the_long_lifetime_and_are_priced_so(
    fake: FakeAnthropic, adapter: AnthropicAdapter
) -> None:
    briefing = Message(role="user", content=(Text(text="stable " * 600), Text(text="variable")))
    long_lived = request(briefing).model_copy(
        update={"cache_ttl": "1h", "cache_marks": ((0, 0), (0, 1))}
    )
    fake.push(text("ok"), text("ok"))
    first = adapter.complete(long_lived)
    body = fake.requests[0].json
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    stable, variable = body["messages"][0]["content"]
    assert stable["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert variable["cache_control"] == {"type": "ephemeral"}  # longer-lived ones come first
    # claude-sonnet-5-5: a 1-hour write costs 2 x 2.00 per MTok, a 5-minute one 2.50
    written = first.usage.cache_write_tokens
    five_minutes = adapter._prices.cost("claude-sonnet-5-5", first.usage)
    long_writes = (first.usage.cost_usd - five_minutes) / ((4.00 - 2.50) / 1_000_000)
    assert 1000 < round(long_writes) < written  # the system prompt and the stable block
    second = adapter.complete(long_lived)
    assert second.usage.cache_read_tokens == written
    short = request(briefing)
    fake.push(text("ok"))
    adapter.complete(short)
    assert fake.requests[2].json["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_the_one_hour_write_price_defaults_to_twice_the_input() -> None:
    from workers.controller.spend import Usage
    from workers.defaults import load_default_prices

    prices = load_default_prices()
    usage = Usage(cache_write_tokens=1_000_000)
    assert prices.cost("claude-sonnet-5-5", usage) == pytest.approx(2.50)
    with_long = prices.cost("claude-sonnet-5-5", usage, write_1h_tokens=1_000_000)
    assert with_long == pytest.approx(4.00)
