"""The bench's model of the prompt cache: breakpoints, lookback, lifetimes, minimum length."""

from __future__ import annotations

from typing import Any

from bench.cachemodel import CacheModel


def body(*texts: str, marks: dict[int, str], model: str = "claude-sonnet-5-5") -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for n, t in enumerate(texts):
        block: dict[str, Any] = {"type": "text", "text": t}
        if n in marks:
            block["cache_control"] = {"type": "ephemeral", "ttl": marks[n]}
        blocks.append(block)
    return {"model": model, "system": "s", "messages": [{"role": "user", "content": blocks}]}


BIG = "x" * 8000  # 2,000 tokens at 4 bytes each


def test_a_breakpoint_is_read_by_a_later_request_while_it_lives() -> None:
    cache = CacheModel()
    first = cache.request(body(BIG, "one", marks={0: "5m"}), now=0)
    assert first.read == 0 and first.written > 1900
    second = cache.request(body(BIG, "two", marks={0: "5m"}), now=200)
    assert second.read == first.written and second.written == 0
    third = cache.request(body(BIG, "three", marks={0: "5m"}), now=200 + 301)
    assert third.read == 0  # expired: 5 minutes after its last read


def test_one_hour_entries_outlive_the_gap_and_cost_more_to_write() -> None:
    cache = CacheModel()
    first = cache.request(body(BIG, "a", marks={0: "1h"}), now=0)
    assert first.written_1h == first.written
    assert cache.request(body(BIG, "b", marks={0: "1h"}), now=1800).read == first.written
    assert CacheModel(ttl="5m").request(body(BIG, "c", marks={0: "1h"}), 0).written_1h == 0
    assert first.cost_units() > first.prompt  # 2x on the written part


def test_prefixes_under_the_minimum_are_not_cached() -> None:
    cache = CacheModel()
    small = "y" * 3000  # 750 tokens: under Sonnet's 1,024
    cache.request(body(small, "a", marks={0: "5m"}), now=0)
    assert cache.request(body(small, "b", marks={0: "5m"}), now=1).read == 0
    haiku = CacheModel()
    medium = "z" * 6000  # 1,500 tokens: enough for Sonnet, not for Haiku's 2,048
    haiku.request(body(medium, "a", marks={0: "5m"}, model="claude-haiku-5-5"), now=0)
    later = haiku.request(body(medium, "b", marks={0: "5m"}, model="claude-haiku-5-5"), now=1)
    assert later.read == 0


def test_the_newest_breakpoint_finds_an_earlier_one_within_twenty_blocks() -> None:
    cache = CacheModel()
    turns = [f"turn {n} " + BIG[:100] for n in range(30)]
    first = cache.request(body(BIG, *turns[:5], marks={5: "5m"}), now=0)
    near = cache.request(body(BIG, *turns[:15], marks={15: "5m"}), now=1)
    assert near.read == first.prompt  # within the lookback: the previous breakpoint
    far = CacheModel()
    far.request(body(BIG, *turns[:2], marks={2: "5m"}), now=0)
    assert far.request(body(BIG, *turns[:30], marks={30: "5m"}), now=1).read == 0
