"""The tool-use loop of one agent run, with its step, token and wall-clock limits.

Limits (and the task's budget, through ``guard``) are checked before every model call, and
the conversation is fitted into the model's context window (:mod:`workers.agents.window`).
The agent's own final text is the text of its last answer without tool calls; tool output
never reaches it.

An answer that reaches the output limit (``max_tokens``) is never taken as done: a text is
continued ("continue exactly where you stopped", the parts joined), and a tool call, which
may be cut in its middle, is never run: the same request is sent again with twice the room,
up to a cap; at the cap the call is dropped and the model told to make smaller calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from workers.agents.compaction import NOTE
from workers.agents.llm import (
    LLMAdapter,
    LLMRequest,
    Message,
    StopReason,
    Text,
    ToolResult,
)
from workers.agents.settings import OutputSettings, RunLimits
from workers.agents.tools import ToolBox
from workers.agents.window import Fit, Window
from workers.controller.spend import Usage

CONTINUE = (
    f"{NOTE} your answer was cut off by the output limit. Continue exactly where you "
    "stopped, without repeating anything.]"
)
CUT_CALL = (
    f"{NOTE} your last answer was cut off by the output limit inside a tool call, so the "
    "call was not run. Make smaller calls: write a long file in parts (write_file with the "
    "first part, then edit_file to add the rest).]"
)


class StopCause(StrEnum):
    DONE = "done"
    STEP_LIMIT = "step limit"
    TOKEN_LIMIT = "token limit"  # noqa: S105 (not a password)
    TIME_LIMIT = "time limit"
    CONTEXT_LIMIT = "context limit"
    OUTPUT_LIMIT = "output limit"


@dataclass(frozen=True)
class LoopResult:
    final_text: str
    messages: tuple[Message, ...]
    usage: Usage
    steps: int
    stop: StopCause
    seconds: float
    fits: tuple[Fit, ...] = ()  # each pruning or compaction of the run, in order


@dataclass(frozen=True)
class LoopHooks:
    """``guard`` raises to stop before a model call; ``charge`` records each call's usage."""

    clock: Callable[[], float]
    guard: Callable[[], None]
    charge: Callable[[Usage], None]


@dataclass
class _State:
    messages: list[Message]
    room: int
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    final: str = ""
    cut: list[str] = field(default_factory=list)  # the parts of a text cut off so far
    fits: list[Fit] = field(default_factory=list)

    def result(self, stop: StopCause, seconds: float) -> LoopResult:
        messages = tuple(self.messages)
        fits = tuple(self.fits)
        return LoopResult(self.final, messages, self.usage, self.steps, stop, seconds, fits)


def _limit_hit(limits: RunLimits, steps: int, usage: Usage, seconds: float) -> StopCause | None:
    if steps >= limits.max_steps:
        return StopCause.STEP_LIMIT
    if usage.total_tokens >= limits.max_tokens:
        return StopCause.TOKEN_LIMIT
    if seconds >= limits.max_seconds:
        return StopCause.TIME_LIMIT
    return None


def cache_marks(messages: list[Message]) -> tuple[tuple[int, int], ...]:
    """Breakpoints: the briefing's stable first block, the end of the briefing (where a
    compaction's summary goes; every later call of the conversation reads the whole
    briefing from the cache), and the newest message: with the system prompt's, four, the
    API's limit."""
    if not messages:
        return ()
    marks: list[tuple[int, int]] = []
    if len(messages[0].content) > 1:
        marks += [(0, 0), (0, len(messages[0].content) - 1)]
    newest = (len(messages) - 1, len(messages[-1].content) - 1)
    return tuple(marks if newest in marks else [*marks, newest])


def _no_tools(message: Message) -> Message:
    results = tuple(
        ToolResult(tool_use_id=c.id, content="no tools are available to you", is_error=True)
        for c in message.tool_calls()
    )
    return Message(role="user", content=results)


def _raw_text(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, Text))


def _cut_off(state: _State, message: Message, output: OutputSettings) -> bool:
    """Handle an answer cut off at the output limit; False when it cannot be continued."""
    if message.tool_calls():
        if state.room < output.max_tokens_cap:
            state.room = min(output.max_tokens_cap, state.room * 2)
            return True
        said = message.text() or f"{NOTE} answer cut off]"
        state.messages += [Message(role="assistant", content=(Text(text=said),))]
        state.messages.append(Message.user(CUT_CALL))
        state.cut = []
        return True
    if len(state.cut) >= output.continuations:
        state.messages.append(message)
        state.final = "".join([*state.cut, _raw_text(message)]).strip()
        return False
    state.cut.append(_raw_text(message))
    state.messages += [message, Message.user(CONTINUE)]
    return True


def run_loop(
    adapter: LLMAdapter,
    base: LLMRequest,
    toolbox: ToolBox | None,
    limits: RunLimits,
    hooks: LoopHooks,
    *,
    window: Window | None = None,
    output: OutputSettings | None = None,
) -> LoopResult:
    """Call the model until it answers without tool calls or a limit is hit.

    ``base`` carries the model, system prompt, tools, the conversation so far and the
    output room. Raises :class:`~workers.agents.llm.LLMError` and whatever ``hooks.guard``
    raises.
    """
    out = output or OutputSettings(max_tokens=base.max_tokens)
    state, started = _State(list(base.messages), base.max_tokens), hooks.clock()
    while True:
        elapsed = hooks.clock() - started
        stop = _limit_hit(limits, state.steps, state.usage, elapsed)
        if stop is not None:
            return state.result(stop, elapsed)
        hooks.guard()
        if window is not None and not _fitted(state, window, base):
            return state.result(StopCause.CONTEXT_LIMIT, hooks.clock() - started)
        request = base.model_copy(
            update={
                "messages": tuple(state.messages),
                "cache_marks": cache_marks(state.messages),
                "max_tokens": state.room,
            }
        )
        response = adapter.complete(request)
        state.steps += 1
        state.usage += response.usage
        hooks.charge(response.usage)
        if window is not None:
            window.observe(request, response.usage)
        if response.stop_reason is StopReason.MAX_TOKENS:
            if _cut_off(state, response.message, out):
                continue
            return state.result(StopCause.OUTPUT_LIMIT, hooks.clock() - started)
        state.messages.append(response.message)
        state.final = "".join([*state.cut, _raw_text(response.message)]).strip()
        if response.stop_reason is StopReason.PAUSE_TURN:
            continue
        calls = response.message.tool_calls()
        if not calls:
            return state.result(StopCause.DONE, hooks.clock() - started)
        state.cut = []
        if toolbox is None:
            state.messages.append(_no_tools(response.message))
            continue
        state.messages.append(Message(role="user", content=tuple(toolbox.call(c) for c in calls)))


def _fitted(state: _State, window: Window, base: LLMRequest) -> bool:
    fitted = window.fit(base, state.messages, state.room)
    state.messages = fitted.messages
    if fitted.fit is not Fit.KEPT:
        state.fits.append(fitted.fit)
    return fitted.fit is not Fit.OVERFLOW
