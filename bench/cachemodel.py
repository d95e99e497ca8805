"""What Anthropic's prompt cache would read for a sequence of requests: a model of it.

The rules modelled (from the prompt-caching documentation):

- The prompt is a prefix in the order tools, system, messages. A ``cache_control``
  breakpoint writes an entry for the prefix that ends with its block, if that prefix
  reaches the model's minimum cacheable length: 1,024 tokens for Sonnet- and Opus-class
  models, 2,048 for Haiku-class ones (tokens counted as bytes / 4 here, no tokenizer).
- A request reads the longest prefix that ends at one of its breakpoints, or at one of the
  20 block boundaries before a breakpoint, and that an earlier request wrote and is alive.
- An entry lives its TTL (5 minutes, or 1 hour with ``"ttl": "1h"``) from its last write
  or read.

Requests are fed with a (simulated) time; the result is tokens read, written (and of those
written for an hour) and the prompt's size.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from tests.fakes.anthropic import prompt_blocks

LOOKBACK = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}
BYTES_PER_TOKEN = 4


def minimum_tokens(model: str) -> int:
    return 2048 if "haiku" in model else 1024


@dataclass(frozen=True)
class CacheUse:
    prompt: int  # tokens
    read: int
    written: int
    written_1h: int

    def cost_units(self) -> float:
        """The prompt's price in units of the plain input price (write 1.25x or 2x, read 0.1x)."""
        plain = self.prompt - self.read - self.written
        short = self.written - self.written_1h
        return plain + 1.25 * short + 2.0 * self.written_1h + 0.1 * self.read


@dataclass
class _Boundary:
    size: int  # bytes up to and including this block
    key: bytes
    ttl: str | None  # set on a breakpoint


class CacheModel:
    """The cache of one organisation; ``ttl`` overrides every breakpoint's lifetime."""

    def __init__(self, ttl: str | None = None) -> None:
        self.ttl = ttl
        self.alive: dict[bytes, tuple[float, float]] = {}  # key -> (expiry, lifetime)

    def _boundaries(self, body: dict[str, Any]) -> list[_Boundary]:
        digest, size, found = hashlib.sha256(), 0, []
        for segment in prompt_blocks(body):
            digest.update(segment.data)
            size += len(segment.data)
            if segment.block:
                ttl = segment.ttl and (self.ttl or segment.ttl)
                found.append(_Boundary(size, digest.copy().digest(), ttl))
        return found

    def request(self, body: dict[str, Any], now: float) -> CacheUse:
        blocks = self._boundaries(body)
        marks = [n for n, b in enumerate(blocks) if b.ttl is not None]
        read = 0
        for mark in marks:
            for n in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                entry = self.alive.get(blocks[n].key)
                if entry is not None and entry[0] >= now:
                    read = max(read, blocks[n].size)
                    self.alive[blocks[n].key] = (now + entry[1], entry[1])
                    break
        floor = minimum_tokens(str(body.get("model", ""))) * BYTES_PER_TOKEN
        written_to = written_1h_to = read
        for mark in marks:
            boundary = blocks[mark]
            if boundary.size < floor or boundary.ttl is None:
                continue
            lifetime = TTL_SECONDS[boundary.ttl]
            self.alive[boundary.key] = (now + lifetime, lifetime)
            written_to = max(written_to, boundary.size)
            if boundary.ttl == "1h":
                written_1h_to = max(written_1h_to, boundary.size)
        total = blocks[-1].size if blocks else 0
        tokens = [v // BYTES_PER_TOKEN for v in (total, read, written_to - read)]
        return CacheUse(*tokens, (written_1h_to - read) // BYTES_PER_TOKEN)
