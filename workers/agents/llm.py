"""The LLM seam: one Protocol, and the request and response types it speaks.

The types are provider-neutral and JSON-serialisable (pydantic; a call's ``Usage`` is the one
usage model, from :mod:`workers.controller.spend`), so a conversation can be
saved in the task's state directory and continued by another worker process.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from workers.controller.spend import Usage

_FROZEN = ConfigDict(frozen=True)


class Text(BaseModel):
    model_config = _FROZEN
    type: Literal["text"] = "text"
    text: str


class ToolCall(BaseModel):
    model_config = _FROZEN
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]


class ToolResult(BaseModel):
    model_config = _FROZEN
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


class Opaque(BaseModel):
    """A provider block the agents do not interpret (e.g. thinking), sent back unchanged."""

    model_config = _FROZEN
    type: Literal["opaque"] = "opaque"
    data: dict[str, Any]


Block = Annotated[Text | ToolCall | ToolResult | Opaque, Field(discriminator="type")]


class Message(BaseModel):
    model_config = _FROZEN
    role: Literal["user", "assistant"]
    content: tuple[Block, ...]

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", content=(Text(text=text),))

    def text(self) -> str:
        """The message's own text blocks (never tool input or output), joined."""
        return "\n".join(b.text for b in self.content if isinstance(b, Text)).strip()

    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolSpec(BaseModel):
    model_config = _FROZEN
    name: str
    description: str
    input_schema: dict[str, Any]


class LLMRequest(BaseModel):
    """One model call. ``system`` and ``tools`` are the stable, cacheable prefix.

    ``cache_marks`` lists ``(message, block)`` indexes (negative counts from the end) of
    the blocks that end a cacheable prefix, besides the system prompt. ``cache_ttl`` is the
    lifetime of the stable ones (the system prompt and the first block of the first
    message); the others live 5 minutes (the API wants longer-lived ones first).
    """

    model_config = _FROZEN
    model: str
    system: str
    tools: tuple[ToolSpec, ...] = ()
    messages: tuple[Message, ...]
    max_tokens: int = 8192
    cache_marks: tuple[tuple[int, int], ...] = ()
    cache_ttl: Literal["5m", "1h"] = "5m"


class StopReason(StrEnum):
    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    PAUSE_TURN = "pause_turn"
    REFUSAL = "refusal"
    OTHER = "other"


class LLMResponse(BaseModel):
    model_config = _FROZEN
    message: Message
    stop_reason: StopReason
    usage: Usage
    model: str = ""
    attempts: int = 1


class LLMError(Exception):
    """The model could not be called (after the adapter's retries, or a rejected request).

    The message never contains credentials: it is the provider's error type, status and
    request id.
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False):
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class LLMAdapter(Protocol):
    """Sends one request to a model and returns its answer with the usage it cost."""

    def complete(self, request: LLMRequest) -> LLMResponse: ...
