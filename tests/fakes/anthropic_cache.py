"""The prompt as Anthropic's prompt cache sees it: tools, system, messages, in that order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Segment:
    """A piece of the prompt in the cache's order; ``ttl`` is set on a breakpoint."""

    data: bytes
    block: bool  # a content block (tool, system block, message block), not a role marker
    ttl: str | None = None


def _canonical(item: Any) -> Segment:
    control = item.get("cache_control") if isinstance(item, dict) else None
    if isinstance(item, dict):
        item = {k: v for k, v in item.items() if k != "cache_control"}
    data = json.dumps(item, sort_keys=True, ensure_ascii=False).encode()
    return Segment(data, True, control.get("ttl", "5m") if control else None)


def prompt_blocks(body: dict[str, Any]) -> list[Segment]:
    """The prompt in the cache's order (tools, system, messages), block by block."""
    system = body.get("system", [])
    parts = [_canonical(t) for t in body.get("tools", [])]
    parts += [_canonical(s) for s in (system if isinstance(system, list) else [system])]
    for message in body.get("messages", []):
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        parts.append(Segment(f'{{"role":"{message["role"]}"}}'.encode(), False))
        parts += [_canonical(b) for b in blocks]
    return parts


def prompt_segments(body: dict[str, Any]) -> list[tuple[bytes, bool]]:
    """The prompt in the cache's order as (bytes, breakpoint)."""
    return [(s.data, s.ttl is not None) for s in prompt_blocks(body)]


def prompt_bytes(body: dict[str, Any]) -> bytes:
    return b"".join(segment for segment, _ in prompt_segments(body))


def shared_prefix(a: bytes, b: bytes) -> int:
    """The length of the common prefix of ``a`` and ``b`` (by halving, in C-speed slices)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
