"""The request path's only Redis work: drop repeats and store the delivery, atomically.

One round trip per accepted delivery (an EVALSHA): `SET seen NX EX` and, when the id
is new, `LPUSH` the envelope onto the intake list. The dispatcher turns intake entries
into RQ jobs off the request path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from config import keys

_SUBMIT = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('LPUSH', KEYS[2], ARGV[2])
  return 1
end
return 0
"""

SEPARATOR = b"\n"


@dataclass(frozen=True, slots=True)
class Envelope:
    """What the worker gets: GitHub's headers that matter and the raw body."""

    delivery: str
    event: str
    action: str | None
    received_at: float
    body: bytes

    def encode(self) -> bytes:
        meta = {
            "delivery": self.delivery,
            "event": self.event,
            "action": self.action,
            "received_at": self.received_at,
        }
        return json.dumps(meta).encode() + SEPARATOR + self.body

    @staticmethod
    def decode(raw: bytes) -> tuple[dict[str, Any], bytes]:
        meta, _, body = raw.partition(SEPARATOR)
        return json.loads(meta), body


class Intake:
    """Writes accepted deliveries into Redis; `submit` is False for a repeated id."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._script = redis.register_script(_SUBMIT)

    async def submit(self, envelope: Envelope) -> bool:
        added = await self._script(
            keys=[keys.delivery_seen(envelope.delivery), keys.INTAKE],
            args=[keys.DELIVERY_TTL_S, envelope.encode()],
        )
        return bool(added)
