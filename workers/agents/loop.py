"""The tool-use loop of one agent run, with its step, token and wall-clock limits.

Limits (and the task's budget, through ``guard``) are checked before every model call.
The agent's own final text is the text of its last answer without tool calls; tool
output never reaches it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from workers.agents.llm import (
    LLMAdapter,
    LLMRequest,
    Message,
    StopReason,
    ToolResult,
)
from workers.agents.settings import RunLimits
from workers.agents.tools import ToolBox
from workers.controller.spend import Usage


class StopCause(StrEnum):
    DONE = "done"
    STEP_LIMIT = "step limit"
    TOKEN_LIMIT = "token limit"  # noqa: S105 (not a password)
    TIME_LIMIT = "time limit"


@dataclass(frozen=True)
class LoopResult:
    final_text: str
    messages: tuple[Message, ...]
    usage: Usage
    steps: int
    stop: StopCause
    seconds: float


@dataclass(frozen=True)
class LoopHooks:
    """``guard`` raises to stop before a model call; ``charge`` records each call's usage."""

    clock: Callable[[], float]
    guard: Callable[[], None]
    charge: Callable[[Usage], None]


def _limit_hit(limits: RunLimits, steps: int, usage: Usage, seconds: float) -> StopCause | None:
    if steps >= limits.max_steps:
        return StopCause.STEP_LIMIT
    if usage.total_tokens >= limits.max_tokens:
        return StopCause.TOKEN_LIMIT
    if seconds >= limits.max_seconds:
        return StopCause.TIME_LIMIT
    return None


def cache_marks(messages: list[Message]) -> tuple[tuple[int, int], ...]:
    """Breakpoints: the briefing's stable block and its end, and the newest message's end.

    The briefing's end stays a breakpoint after the first call, so every later call of the
    conversation reads the whole briefing from the cache (with the system prompt's, four
    breakpoints at most, the API's limit)."""
    marks: list[tuple[int, int]] = []
    if messages and len(messages[0].content) > 1:
        marks += [(0, 0), (0, len(messages[0].content) - 1)]
    if messages:
        newest = (len(messages) - 1, len(messages[-1].content) - 1)
        if newest not in marks:
            marks.append(newest)
    return tuple(marks)


def _no_tools(message: Message) -> Message:
    results = tuple(
        ToolResult(tool_use_id=c.id, content="no tools are available to you", is_error=True)
        for c in message.tool_calls()
    )
    return Message(role="user", content=results)


def run_loop(
    adapter: LLMAdapter,
    base: LLMRequest,
    toolbox: ToolBox | None,
    limits: RunLimits,
    hooks: LoopHooks,
) -> LoopResult:
    """Call the model until it answers without tool calls or a limit is hit.

    ``base`` carries the model, system prompt, tools and the conversation so far.
    Raises :class:`~workers.agents.llm.LLMError` and whatever ``hooks.guard`` raises.
    """
    messages = list(base.messages)
    usage, steps, started = Usage(), 0, hooks.clock()
    final = ""
    while True:
        elapsed = hooks.clock() - started
        stop = _limit_hit(limits, steps, usage, elapsed)
        if stop is not None:
            return LoopResult(final, tuple(messages), usage, steps, stop, elapsed)
        hooks.guard()
        request = base.model_copy(
            update={"messages": tuple(messages), "cache_marks": cache_marks(messages)}
        )
        response = adapter.complete(request)
        steps += 1
        usage += response.usage
        hooks.charge(response.usage)
        messages.append(response.message)
        final = response.message.text()
        if response.stop_reason is StopReason.PAUSE_TURN:
            continue
        calls = response.message.tool_calls()
        if not calls:
            elapsed = hooks.clock() - started
            return LoopResult(final, tuple(messages), usage, steps, StopCause.DONE, elapsed)
        if toolbox is None:
            messages.append(_no_tools(response.message))
            continue
        messages.append(Message(role="user", content=tuple(toolbox.call(c) for c in calls)))
