"""The request path's only Redis work: drop repeats and store deliveries, atomically.

Deliveries submitted together are written together (group commit): one EVAL per batch,
in which each delivery's `SET seen NX EX` and, when its id is new, its body under its own
key and a small entry (delivery id, event, action, time) on the intake list. Every
submitter waits for the batch that holds its delivery, so a delivery is in Redis before
its 202, and each learns whether its id was new. With one request in flight this is one
round trip per delivery, as before; under load, one per batch, a few batches at once.
The dispatcher turns intake entries into RQ jobs off the request path; the body (what
the bot reads of it, ``bot.projection``) is written once and read by the worker that
handles the delivery.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
from redis.asyncio import Redis

from bot.redis_call import SoleConnection
from config import keys
from config.wire import DeliveryMeta

MAX_BATCH = 16
WRITERS = 4  # batches written at once, one connection each
GATHER_S = 0.001  # under load, a writer starts a write at most this often

# KEYS: the intake list, then (seen, body) per delivery; ARGV: the TTL, then (entry, body).
_SUBMIT = """
local added = {}
for i = 1, (#KEYS - 1) / 2 do
  if redis.call('SET', KEYS[2 * i], '1', 'NX', 'EX', ARGV[1]) then
    redis.call('SET', KEYS[2 * i + 1], ARGV[2 * i + 1], 'EX', ARGV[1])
    redis.call('LPUSH', KEYS[1], ARGV[2 * i])
    added[i] = 1
  else
    added[i] = 0
  end
end
return added
"""

_SUBMIT_SOURCE = _SUBMIT.encode()
_INTAKE = keys.INTAKE.encode()
_TTL = b"%d" % keys.DELIVERY_TTL_S
_ENCODE = msgspec.json.Encoder()


# Made for every delivery: slots but not frozen, which makes building one ~3x cheaper
# (a frozen dataclass sets each field through object.__setattr__). Never mutated.
@dataclass(slots=True)
class Envelope:
    """A delivery as stored: GitHub's headers that matter, the receipt time and the body."""

    delivery: str
    event: str
    action: str | None
    received_at: float
    body: bytes

    def entry(self) -> bytes:
        """The intake entry: everything but the body, as a JSON object with the fields of
        :class:`config.wire.DeliveryMeta` (encoded by msgspec: it is on the request path)."""
        meta = {
            "delivery": self.delivery,
            "event": self.event,
            "action": self.action,
            "received_at": self.received_at,
        }
        return _ENCODE.encode(meta)


def decode_entry(raw: bytes) -> DeliveryMeta:
    return DeliveryMeta.model_validate_json(raw)


Waiting = tuple[Envelope, "asyncio.Future[bool]"]


class Intake:
    """Writes accepted deliveries into Redis; `submit` is False for a repeated id.

    Up to `writers` batches are written at once, each on a connection of its own: one
    batch's bytes are read by Redis a buffer at a time, so a single writer would hold
    every later delivery behind the whole of the one before.
    """

    def __init__(
        self,
        redis: Redis,
        writers: int = WRITERS,
        max_batch: int = MAX_BATCH,
        gather_s: float = GATHER_S,
    ) -> None:
        self._idle = [_Writer(SoleConnection(redis)) for _ in range(writers)]
        self._max_batch = max_batch
        self._gather_s = gather_s
        self._waiting: list[Waiting] = []
        self._gathering = 0  # writers waiting for a batch to fill: newcomers join theirs
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, envelope: Envelope) -> bool:
        """True once the delivery is stored, False if its id was seen; raises what Redis
        raised (the delivery may or may not be stored: GitHub redelivers, dedupe holds)."""
        return await self.enqueue(envelope)

    def enqueue(self, envelope: Envelope) -> asyncio.Future[bool]:
        """`submit` without a coroutine, for a caller in the event loop's thread that
        answers from the future's callback (``bot.hookserver``)."""
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append((envelope, done))
        self._start_writer()
        return done

    def _start_writer(self) -> None:
        if self._waiting and self._idle and not self._gathering:
            self._gathering += 1  # from now until it takes its batch
            task = asyncio.create_task(self._write_all(self._idle.pop()))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _write_all(self, writer: _Writer) -> None:
        """Write batches until nobody is waiting (those who arrive meanwhile join the next)."""
        batch: list[Waiting] = []
        try:
            while True:
                try:
                    await writer.gather(self._gather_s, lambda: self._full)
                finally:
                    self._gathering -= 1
                batch = self._waiting[: self._max_batch]
                del self._waiting[: self._max_batch]
                if batch:
                    await _write(writer.connection, batch)
                if not self._waiting or self._gathering:  # none left, or another has them
                    break
                self._gathering += 1
        except BaseException:  # cancelled (shutting down): nobody may wait forever
            for _, done in [*batch, *self._waiting]:
                done.cancel()
            self._waiting.clear()
            raise
        finally:
            self._idle.append(writer)
        self._start_writer()  # a delivery that came as this writer finished

    @property
    def _full(self) -> bool:
        return len(self._waiting) >= self._max_batch


class _Writer:
    def __init__(self, connection: SoleConnection) -> None:
        self.connection = connection
        self._last_write = 0.0

    async def gather(self, gather_s: float, full: Callable[[], bool]) -> None:
        """Right after a write (the process is busy), let deliveries gather for the rest of
        `gather_s` so the next write carries several; when idle, write at once."""
        loop = asyncio.get_running_loop()
        wait = self._last_write + gather_s - loop.time()
        if wait > 0 and not full():
            await asyncio.sleep(wait)
        self._last_write = loop.time()


async def _write(connection: SoleConnection, batch: list[Waiting]) -> None:
    # EVAL, not EVALSHA: Redis caches the compiled script, and there is no NOSCRIPT.
    command = [b"EVAL", _SUBMIT_SOURCE, b"%d" % (1 + 2 * len(batch)), _INTAKE]
    args = [_TTL]
    for envelope, _ in batch:
        delivery = envelope.delivery
        command += (keys.delivery_seen(delivery).encode(), keys.delivery_body(delivery).encode())
        args += (envelope.entry(), envelope.body)
    try:
        added = await connection.call(command + args)
    except Exception as exc:  # every waiter gets the failure (a 503), the writer goes on
        for _, done in batch:
            if not done.done():
                done.set_exception(exc)
        return
    for (_, done), new in zip(batch, added, strict=True):
        if not done.done():
            done.set_result(bool(new))
