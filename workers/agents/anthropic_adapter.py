"""The default LLM adapter: the Anthropic Messages API through the ``anthropic`` SDK.

The client is built by the composition root with ``max_retries=0``: this adapter owns the
retries (see :mod:`workers.agents.retry`). The system prompt carries a ``cache_control``
breakpoint (tools come before it in the cache order, so both are cached), and so does the
last block of every message listed in ``LLMRequest.cache_marks``. The system prompt's and
the first message's first block's breakpoints live ``LLMRequest.cache_ttl``, the others 5
minutes; 1-hour cache writes are priced as such.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, cast

import anthropic
from anthropic.types import (
    CacheControlEphemeralParam,
    ContentBlockParam,
    MessageParam,
    TextBlockParam,
    ToolParam,
)
from anthropic.types import Message as ApiMessage

from workers.agents.llm import (
    Block,
    LLMError,
    LLMRequest,
    LLMResponse,
    Message,
    Opaque,
    StopReason,
    Text,
    ToolCall,
    ToolResult,
)
from workers.agents.pricing import PriceTable
from workers.agents.retry import ModelRetryPolicy, is_transient
from workers.controller.spend import Usage

log = logging.getLogger("agentium.agents.anthropic")

EPHEMERAL = {"type": "ephemeral"}


def cache_control(ttl: str) -> dict[str, str]:
    return EPHEMERAL if ttl == "5m" else {**EPHEMERAL, "ttl": ttl}


def _block_param(block: Block) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, ToolCall):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResult):
        return {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": block.content,
            "is_error": block.is_error,
        }
    return dict(block.data)


def message_params(request: LLMRequest) -> list[MessageParam]:
    """The ``messages`` of the API request, with cache breakpoints at ``cache_marks``."""
    messages = [[_block_param(b) for b in m.content] for m in request.messages]
    count = len(messages)
    for message_index, block_index in request.cache_marks:
        blocks = messages[message_index]
        stable = message_index % count == 0 and block_index % len(blocks) == 0
        control = cache_control(request.cache_ttl if stable else "5m")
        blocks[block_index] = {**blocks[block_index], "cache_control": control}
    params: list[MessageParam] = []
    for message, blocks in zip(request.messages, messages, strict=True):
        content = cast(list[ContentBlockParam], blocks)
        params.append(cast(MessageParam, {"role": message.role, "content": content}))
    return params


def system_params(request: LLMRequest) -> list[TextBlockParam]:
    control = cast(CacheControlEphemeralParam, cache_control(request.cache_ttl))
    return [{"type": "text", "text": request.system, "cache_control": control}]


def tool_params(request: LLMRequest) -> list[ToolParam]:
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in request.tools
    ]


def _block(item: Any) -> Block:
    if item.type == "text":
        return Text(text=item.text)
    if item.type == "tool_use":
        return ToolCall(id=item.id, name=item.name, input=dict(item.input))
    return Opaque(data=item.model_dump(mode="json", exclude_none=True))


def _stop_reason(value: str | None) -> StopReason:
    try:
        return StopReason(value or "other")
    except ValueError:
        return StopReason.OTHER


def usage_of(message: ApiMessage) -> Usage:
    usage = message.usage
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_write_tokens=usage.cache_creation_input_tokens or 0,
        cache_read_tokens=usage.cache_read_input_tokens or 0,
    )


def describe(error: anthropic.APIError) -> str:
    """A short description without credentials: type, status, request id, API message."""
    if isinstance(error, anthropic.APIStatusError):
        kind = error.type or "error"
        said = (error.api_message or "")[:300]
        return f"{kind} (HTTP {error.status_code}, request {error.request_id or '?'}): {said}"
    return f"{type(error).__name__}: connection to the model failed"


class AnthropicAdapter:
    """:class:`workers.agents.llm.LLMAdapter` on ``client.messages.create``."""

    def __init__(
        self,
        client: anthropic.Anthropic,
        prices: PriceTable,
        retry: ModelRetryPolicy,
        *,
        sleep: Callable[[float], None],
        now: Callable[[], float],
    ) -> None:
        self._client = client
        self._prices = prices
        self._retry = retry
        self._sleep = sleep
        self._now = now

    def _send(self, request: LLMRequest) -> ApiMessage:
        return self._client.messages.create(
            model=request.model,
            max_tokens=request.max_tokens,
            system=system_params(request),
            tools=tool_params(request),
            messages=message_params(request),
        )

    def complete(self, request: LLMRequest) -> LLMResponse:
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            try:
                reply = self._send(request)
            except anthropic.APIStatusError as error:
                status: int | None = error.status_code
                headers: Mapping[str, str] = error.response.headers
                failure: anthropic.APIError = error
            except anthropic.APIConnectionError as error:
                status, headers, failure = None, {}, error
            else:
                return self._response(request, reply, attempt)
            wait = self._wait(attempt, waited, status, headers)
            if wait is None:
                raise LLMError(
                    f"{describe(failure)} after {attempt} attempt(s)",
                    status=status,
                    retryable=is_transient(status, headers),
                ) from None
            log.warning(
                "model call failed, retrying",
                extra={"status": status, "attempt": attempt, "wait_s": round(wait, 2)},
            )
            self._sleep(wait)
            waited += wait

    def _wait(
        self, attempt: int, waited: float, status: int | None, headers: Mapping[str, str]
    ) -> float | None:
        if not is_transient(status, headers):
            return None
        return self._retry.next_wait(attempt, waited, headers, self._now())

    def _response(self, request: LLMRequest, reply: ApiMessage, attempts: int) -> LLMResponse:
        usage = usage_of(reply)
        created = reply.usage.cache_creation
        long_writes = created.ephemeral_1h_input_tokens if created is not None else 0
        cost = self._prices.cost(request.model, usage, write_1h_tokens=long_writes)
        priced = usage.model_copy(update={"cost_usd": cost})
        message = Message(role="assistant", content=tuple(_block(b) for b in reply.content))
        return LLMResponse(
            message=message,
            stop_reason=_stop_reason(reply.stop_reason),
            usage=priced,
            model=reply.model,
            attempts=attempts,
        )
