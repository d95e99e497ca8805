"""The request path's only Redis work: drop repeats and store the delivery, atomically.

One round trip per accepted delivery (an EVALSHA): `SET seen NX EX` and, when the id is
new, the body under its own key and a small entry (delivery id, event, action, time) on
the intake list. The dispatcher turns intake entries into RQ jobs off the request path;
the body is written once and read by the worker that handles the delivery.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from config import keys
from config.wire import DeliveryMeta

_SUBMIT = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[1])
  redis.call('LPUSH', KEYS[3], ARGV[2])
  return 1
end
return 0
"""


@dataclass(frozen=True, slots=True)
class Envelope:
    """A delivery as stored: GitHub's headers that matter, the receipt time and the body."""

    delivery: str
    event: str
    action: str | None
    received_at: float
    body: bytes

    def entry(self) -> bytes:
        """The intake entry: everything but the body, as JSON."""
        meta = DeliveryMeta(
            delivery=self.delivery,
            event=self.event,
            action=self.action,
            received_at=self.received_at,
        )
        return meta.model_dump_json().encode()


def decode_entry(raw: bytes) -> DeliveryMeta:
    return DeliveryMeta.model_validate_json(raw)


class Intake:
    """Writes accepted deliveries into Redis; `submit` is False for a repeated id."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._script = redis.register_script(_SUBMIT)

    async def submit(self, envelope: Envelope) -> bool:
        delivery = envelope.delivery
        added = await self._script(
            keys=[keys.delivery_seen(delivery), keys.delivery_body(delivery), keys.INTAKE],
            args=[keys.DELIVERY_TTL_S, envelope.entry(), envelope.body],
        )
        return bool(added)
