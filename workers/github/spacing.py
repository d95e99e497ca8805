"""Content-creating writes spaced per installation, across every worker, through Redis.

GitHub asks integrations to leave at least one second between POST/PATCH/PUT/DELETE
requests (secondary rate limits); a GraphQL query is a POST that only reads, and is not
spaced. Each write reserves the next free slot in Redis with one atomic script, then
sleeps until its slot: writes of one installation start at least ``interval_s`` apart
whichever worker sends them.
"""

from __future__ import annotations

import json

from redis import Redis

from config import keys
from workers.github.clock import Clock

_RESERVE = """
local now = tonumber(ARGV[1])
local gap = tonumber(ARGV[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, free)
local ttl = math.ceil((slot + gap - now) * 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.6f', slot + gap), 'PX', ttl)
return string.format('%.6f', slot)
"""

WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})


class WriteSpacer:
    def __init__(self, redis: Redis, clock: Clock, interval_s: float = 1.0) -> None:
        self._redis = redis
        self._clock = clock
        self._interval = interval_s
        self._script = redis.register_script(_RESERVE)

    def wait(self, installation_id: int) -> float:
        """Block until this write may go; returns the seconds waited."""
        if self._interval <= 0:
            return 0.0
        now = self._clock.now()
        raw = self._script(
            keys=[keys.installation_writes(installation_id)], args=[now, self._interval]
        )
        slot = float(raw.decode() if isinstance(raw, bytes) else raw)
        delay = max(0.0, slot - now)
        self._clock.sleep(delay)
        return delay


def is_content_write(method: str, path: str, body: bytes = b"") -> bool:
    """A write that creates or changes content: not minting a token, and not a GraphQL
    query (a POST that only reads; a mutation, or a body that cannot be read, counts)."""
    if method.upper() not in WRITE_METHODS or path.endswith("/access_tokens"):
        return False
    return not (path.endswith("/graphql") and _graphql_query(body))


def _graphql_query(body: bytes) -> bool:
    try:
        document = json.loads(body)["query"]
    except (ValueError, KeyError, TypeError):
        return False
    if not isinstance(document, str):
        return False
    lines = (line.split("#", 1)[0].strip() for line in document.splitlines())
    first = next((line for line in lines if line), "")
    return first.startswith(("query", "{"))
