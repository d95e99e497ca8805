"""One Messages API call through the whole adapter, answered in memory.

The Anthropic SDK builds parts of itself on first use: its tracing module, the pydantic
models of a response and the type adapters of its content blocks. A worker makes this
call once before it forks a work-horse per job (see :mod:`workers.warmup`), so those
parts are built once and inherited, instead of rebuilt by every job on its way to the
model. The request never leaves the process: an in-memory transport answers it with a
reply of the API's own shape (text and a tool call, usage with cache fields).
"""

from __future__ import annotations

import anthropic
import httpx2

from workers.agents.anthropic_adapter import AnthropicAdapter
from workers.agents.llm import (
    LLMRequest,
    LLMResponse,
    Message,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from workers.agents.pricing import PriceTable
from workers.agents.retry import ModelRetryPolicy

MODEL = "warm-up"
TOOL = ToolSpec(
    name="read_file",
    description="Read a file.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
)
REPLY = {
    "id": "msg_warm_up",
    "type": "message",
    "role": "assistant",
    "model": MODEL,
    "content": [
        {"type": "text", "text": "warm"},
        {"type": "tool_use", "id": "toolu_warm_up", "name": TOOL.name, "input": {"path": "a"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 1,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    },
}


def _answer(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, json=REPLY, headers={"request-id": "req_warm_up"})


def warm_up_anthropic(prices: PriceTable, retry: ModelRetryPolicy) -> LLMResponse:
    """The adapter's reply to a three-message conversation (text, tool call, tool result)."""
    client = anthropic.Anthropic(
        api_key="warm-up",
        base_url="http://warm-up.invalid",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(_answer)),
    )
    with client:
        adapter = AnthropicAdapter(client, prices, retry, sleep=lambda _s: None, now=lambda: 0.0)
        call = ToolCall(id="toolu_warm_up", name=TOOL.name, input={"path": "a"})
        request = LLMRequest(
            model=MODEL,
            system="Warm up.",
            tools=(TOOL,),
            messages=(
                Message.user("Warm up."),
                Message(role="assistant", content=(Text(text="Reading."), call)),
                Message(role="user", content=(ToolResult(tool_use_id=call.id, content="a"),)),
            ),
            max_tokens=16,
            cache_marks=((-1, -1),),
        )
        return adapter.complete(request)
