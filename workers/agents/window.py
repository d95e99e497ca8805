"""Keeping one agent run's prompt inside the model's context window.

The size of the next prompt is estimated from the last call: the API's usage (input +
cache read + cache write tokens) is the size of that prompt, which also gives the ratio of
tokens to characters; what was added since is counted in characters at that ratio (before
the first call, at ``chars_per_token``). Before every call :meth:`Window.fit`:

- below ``prune_at`` of the usable window (the window less its ``margin`` and less the
  answer's room) leaves the conversation as it is;
- above it, stubs the tool results of all but the last ``keep_turns`` turns
  (:func:`workers.agents.compaction.prune`), and of fewer of the last turns (down to one)
  until the prompt is below ``prune_to``;
- when even that leaves more than ``prune_to`` (the conversation itself is long), compacts
  the older turns into a summary (:func:`workers.agents.compaction.compact`);
- reports an overflow when even that does not fit: the loop stops rather than sending a
  request the API would refuse with a 400.

Pruning down to ``prune_to`` frees a good part of the window at once, so it happens every
several calls, not at every call: each one costs a cache write of the prompt from the
first stub on.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from enum import StrEnum

from workers.agents.compaction import compact, prune
from workers.agents.llm import Block, LLMRequest, Message, Text, ToolCall, ToolResult
from workers.agents.settings import WindowSettings
from workers.controller.spend import Usage

log = logging.getLogger("agentium.agents.window")


class Fit(StrEnum):
    KEPT = "kept"
    PRUNED = "pruned"
    COMPACTED = "compacted"
    OVERFLOW = "overflow"


@dataclass(frozen=True)
class Fitted:
    messages: list[Message]
    tokens: int  # the estimated prompt size after fitting
    fit: Fit


def block_chars(block: Block) -> int:
    if isinstance(block, Text):
        return len(block.text)
    if isinstance(block, ToolResult):
        return len(block.content) + 40
    if isinstance(block, ToolCall):
        return len(block.name) + len(json.dumps(block.input, ensure_ascii=False)) + 40
    return len(json.dumps(block.data, ensure_ascii=False))


def prompt_chars(system: str, tools_chars: int, messages: list[Message]) -> int:
    return len(system) + tools_chars + sum(block_chars(b) for m in messages for b in m.content)


class Window:
    """The window of one run: ``observe`` each call's usage, ``fit`` before each call."""

    def __init__(self, settings: WindowSettings, model: str) -> None:
        self.settings = settings
        self.tokens = settings.tokens_for(model)
        self.ratio = 1.0 / settings.chars_per_token
        self.last_prompt = 0

    def usable(self, room: int) -> int:
        return max(1, math.floor(self.tokens * (1 - self.settings.margin)) - room)

    def chars(self, base: LLMRequest, messages: list[Message]) -> int:
        tools = sum(len(t.model_dump_json()) for t in base.tools)
        return prompt_chars(base.system, tools, messages)

    def estimate(self, base: LLMRequest, messages: list[Message]) -> int:
        return math.ceil(self.chars(base, messages) * self.ratio)

    def observe(self, request: LLMRequest, usage: Usage) -> None:
        """Calibrate on the prompt the API counted for ``request``."""
        counted = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        chars = self.chars(request, list(request.messages))
        if counted > 0 and chars > 0:
            self.ratio = counted / chars
            self.last_prompt = counted

    def fit(self, base: LLMRequest, messages: list[Message], room: int) -> Fitted:
        limit = self.usable(room)
        size = self.estimate(base, messages)
        if size <= self.settings.prune_at * limit:
            return Fitted(messages, size, Fit.KEPT)
        target = self.settings.prune_to * limit
        fitted = messages
        for keep in range(self.settings.keep_turns, 0, -1):
            fitted = prune(messages, keep)
            size = self.estimate(base, fitted)
            if size <= target:
                return self._fitted(fitted, size, _change(messages, fitted, Fit.PRUNED), limit)
        compacted = compact(fitted, self.settings.keep_turns, self.settings.summary_chars)
        size = self.estimate(base, compacted)
        fit = _change(messages, compacted, Fit.COMPACTED if compacted is not fitted else Fit.PRUNED)
        return self._fitted(compacted, size, fit if size <= limit else Fit.OVERFLOW, limit)

    def _fitted(self, messages: list[Message], size: int, fit: Fit, limit: int) -> Fitted:
        log.info(
            "context fitted",
            extra={"fit": fit.value, "tokens": size, "limit": limit, "window": self.tokens},
        )
        return Fitted(messages, size, fit)


def _change(before: list[Message], after: list[Message], fit: Fit) -> Fit:
    """``fit``, or KEPT when nothing changed (the same message objects, in order)."""
    same = len(before) == len(after) and all(a is b for a, b in zip(before, after, strict=True))
    return Fit.KEPT if same else fit
