"""The prompt as Anthropic's prompt cache sees it: tools, system, messages, in that order."""

from __future__ import annotations

import json
from typing import Any


def _canonical(item: Any) -> tuple[bytes, bool]:
    marked = isinstance(item, dict) and "cache_control" in item
    if isinstance(item, dict):
        item = {k: v for k, v in item.items() if k != "cache_control"}
    return json.dumps(item, sort_keys=True, ensure_ascii=False).encode(), marked


def prompt_segments(body: dict[str, Any]) -> list[tuple[bytes, bool]]:
    """The prompt in the cache's order (tools, system, messages) as (bytes, breakpoint)."""
    system = body.get("system", [])
    parts: list[tuple[bytes, bool]] = [_canonical(t) for t in body.get("tools", [])]
    parts += [_canonical(s) for s in (system if isinstance(system, list) else [system])]
    for message in body.get("messages", []):
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        parts.append((f'{{"role":"{message["role"]}"}}'.encode(), False))
        parts += [_canonical(b) for b in blocks]
    return parts


def prompt_bytes(body: dict[str, Any]) -> bytes:
    return b"".join(segment for segment, _ in prompt_segments(body))


def shared_prefix(a: bytes, b: bytes) -> int:
    size = min(len(a), len(b))
    index = next((i for i in range(size) if a[i] != b[i]), size)
    return index
