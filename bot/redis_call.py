"""One Redis command at a time on a connection of its own, packed here.

The intake writes one command per batch of deliveries. Through redis-py's client that call
costs the receiver more CPU than the batch's own work (argument encoding, a pool checkout
with a stale-data probe, retry and instrumentation layers), so the command is packed here
(bodies passed as their own buffers, never copied) and sent on one connection taken from
the client's pool, which still does the connecting, AUTH, SELECT and TLS as configured.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

ATTEMPTS = 3  # a connection a Redis restart closed is replaced at once
BACKOFF_S = (0.01, 0.05)
_INLINE = 1024  # longer arguments are written as buffers of their own


def pack(args: Sequence[bytes]) -> list[bytes]:
    """RESP: the command as a multi-bulk array of the given arguments."""
    parts: list[bytes] = []
    pending = bytearray(b"*%d\r\n" % len(args))
    for arg in args:
        pending += b"$%d\r\n" % len(arg)
        if len(arg) > _INLINE:
            parts += (bytes(pending), arg)
            pending = bytearray(b"\r\n")
        else:
            pending += arg
            pending += b"\r\n"
    parts.append(bytes(pending))
    return parts


class SoleConnection:
    """Sends one command at a time (the caller awaits each) on a connection of the pool."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._connection: AbstractConnection | None = None

    async def call(self, args: Sequence[bytes]) -> Any:
        """The command's reply; raises redis-py's errors (an error reply as ResponseError)."""
        packed = pack(args)
        for attempt in range(ATTEMPTS):
            connection = await self._connect()
            try:
                await connection.send_packed_command(packed, check_health=False)
                return await connection.read_response()
            except (RedisConnectionError, RedisTimeoutError, OSError):
                await connection.disconnect()
                if attempt + 1 == ATTEMPTS:
                    raise
            await asyncio.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
        raise AssertionError("unreachable")

    async def _connect(self) -> AbstractConnection:
        if self._connection is None:
            pool = self._redis.connection_pool
            connection = await pool.get_connection()  # type: ignore[no-untyped-call]
            self._connection = connection  # kept for good; closed with the pool
        return self._connection
