"""One Redis command at a time on a connection of its own, written and read here.

The intake writes one command per batch of deliveries. Through redis-py's client that call
costs the receiver more CPU than the batch's own work: argument encoding, a pool checkout
with a stale-data probe, retry and instrumentation layers, and a reply read through an
asyncio stream a line and an await at a time. So the command is packed here (bodies passed
as their own buffers, never copied) and its reply parsed here as its bytes arrive.

redis-py still makes the connection: a connection of the client's pool connects and does
AUTH, HELLO, SELECT and TLS as configured, then its transport is handed to a protocol of
ours (asyncio's ``set_protocol``), and redis-py no longer reads from it. Its own protocol
is still told when the connection is lost, so that redis-py's closing of it (on a failure,
or when the client is closed) completes. A connection that fails is closed through
redis-py and made again the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.resp import Incomplete, Reply, pack, parse

ATTEMPTS = 3  # a connection a Redis restart closed is replaced at once
BACKOFF_S = (0.01, 0.05)
REPLY_TIMEOUT_S = 5.0  # when the client sets no socket timeout
MAX_REPLY = 1 << 20  # the intake's replies are a few bytes per delivery
_UNASKED = "Redis sent bytes nobody asked for"


class SoleConnection:
    """Sends one command at a time (the caller awaits each) on a connection of the pool."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._connection: AbstractConnection | None = None
        self._link: _Link | None = None

    async def call(self, args: Sequence[bytes]) -> Any:
        """The command's reply; raises redis-py's errors (an error reply as ResponseError)."""
        packed = pack(args)
        for attempt in range(ATTEMPTS):
            link = await self._connect()
            try:
                return await link.call(packed)
            except (RedisConnectionError, RedisTimeoutError, InvalidResponse, OSError):
                await self._drop()
                if attempt + 1 == ATTEMPTS:
                    raise
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
        raise AssertionError("unreachable")

    async def _connect(self) -> _Link:
        if self._link is not None:
            if not self._link.closed:
                return self._link
            await self._drop()  # lost while idle: redis-py still takes it for open
        if self._connection is None:
            pool = self._redis.connection_pool
            # Kept for good, closed with the pool; the checkout connects it.
            self._connection = await pool.get_connection()  # type: ignore[no-untyped-call]
        connection = self._connection
        if not connection.is_connected:
            await connection.connect()
        writer = connection._writer
        if writer is None:
            raise RedisConnectionError("the connection to Redis was closed while opening")
        timeout = connection.socket_timeout or REPLY_TIMEOUT_S
        self._link = _Link(writer.transport, timeout)
        return self._link

    async def _drop(self) -> None:
        """Close the connection (redis-py closes its transport); the next call makes it again."""
        self._link = None
        if self._connection is not None:
            await self._connection.disconnect(nowait=True)


class _Link(asyncio.Protocol):
    """The protocol of a connection taken from redis-py: a command written, its reply
    awaited, one at a time."""

    def __init__(self, transport: asyncio.BaseTransport, timeout_s: float) -> None:
        self._transport = transport
        self._timeout_s = timeout_s
        self._buffer = bytearray()
        self._waiter: asyncio.Future[Reply] | None = None
        self._previous = transport.get_protocol()  # redis-py's, told of the loss
        transport.set_protocol(self)

    @property
    def closed(self) -> bool:
        return self._transport.is_closing()

    async def call(self, packed: list[bytes]) -> Reply:
        if self.closed:
            raise RedisConnectionError("the connection to Redis is closed")
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[Reply] = loop.create_future()
        self._waiter = waiter
        timer = loop.call_later(self._timeout_s, self._expire, waiter)
        try:
            self._transport.writelines(packed)  # type: ignore[attr-defined]
            reply = await waiter
        finally:
            timer.cancel()
            self._waiter = None
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        waiter = self._waiter
        if waiter is None or waiter.done():
            self._fail(InvalidResponse(_UNASKED))
            return
        try:
            reply, end = parse(self._buffer)
        except Incomplete:
            if len(self._buffer) > MAX_REPLY:
                self._fail(InvalidResponse(f"a reply longer than {MAX_REPLY} bytes"))
            return
        except InvalidResponse as exc:
            self._fail(exc)
            return
        del self._buffer[:end]
        waiter.set_result(reply)
        if self._buffer:  # more than was asked for: every later reply would be misread
            self._fail(InvalidResponse(_UNASKED))

    def eof_received(self) -> bool:
        self._fail(RedisConnectionError("Redis closed the connection"))
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"the connection to Redis was lost: {exc or 'closed'}"))
        self._previous.connection_lost(exc)

    def _expire(self, waiter: asyncio.Future[Reply]) -> None:
        if not waiter.done():
            waiter.set_exception(RedisTimeoutError(f"no reply from Redis in {self._timeout_s} s"))

    def _fail(self, exc: Exception) -> None:
        """Nothing more can be read right on this connection: it is closed, and made again."""
        self._transport.close()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
