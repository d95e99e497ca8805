"""RESP, Redis's wire format: a command packed for writing, a reply parsed from bytes.

Only what the intake's one command needs: `pack` any command, and `parse` the replies
Redis gives to it (an array of integers, or an error), in RESP2 or RESP3, with the other
plain kinds read too so that an unexpected reply is reported, not misread.
"""

from __future__ import annotations

from collections.abc import Sequence

from redis.exceptions import InvalidResponse, ResponseError

_INLINE = 1024  # longer arguments are written as buffers of their own
MAX_LINE = 64 * 1024  # a reply's header or simple line; longer is not Redis speaking
MAX_DEPTH = 8  # arrays within arrays; the intake's reply has one level

Reply = int | bytes | None | ResponseError | list["Reply"]


class Incomplete(Exception):
    """The buffer ends before the reply does: wait for more bytes."""


def pack(args: Sequence[bytes]) -> list[bytes]:
    """The command as a multi-bulk array of the given arguments."""
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


def parse(buffer: bytes | bytearray, start: int = 0, depth: int = 0) -> tuple[Reply, int]:
    """The reply that starts at `start`, and where it ends. An error reply is returned as a
    ResponseError (inside an array too); raises Incomplete, or InvalidResponse for bytes
    that are not a reply."""
    end = buffer.find(b"\r\n", start)
    if end < 0:
        if len(buffer) - start > MAX_LINE:
            raise InvalidResponse("a reply line longer than Redis writes")
        raise Incomplete
    kind, line, after = buffer[start], bytes(buffer[start + 1 : end]), end + 2
    if kind == 0x3A:  # ':' integer
        return _int(line), after
    if kind == 0x2B:  # '+' simple string
        return line, after
    if kind == 0x2D:  # '-' error
        return ResponseError(line.decode("utf-8", "replace")), after
    if kind == 0x5F:  # '_' RESP3 null
        return None, after
    if kind == 0x24:  # '$' bulk string
        return _bulk(buffer, _int(line), after)
    if kind == 0x2A:  # '*' array
        if depth == MAX_DEPTH:
            raise InvalidResponse(f"arrays nested deeper than {MAX_DEPTH}")
        return _array(buffer, _int(line), after, depth + 1)
    raise InvalidResponse(f"unexpected reply type {chr(kind)!r}")


def _bulk(buffer: bytes | bytearray, size: int, start: int) -> tuple[Reply, int]:
    if size < 0:
        return None, start
    stop = start + size
    if len(buffer) < stop + 2:
        raise Incomplete
    if buffer[stop : stop + 2] != b"\r\n":
        raise InvalidResponse("a bulk string longer than it said")
    return bytes(buffer[start:stop]), stop + 2


def _array(buffer: bytes | bytearray, count: int, start: int, depth: int) -> tuple[Reply, int]:
    if count < 0:
        return None, start
    items: list[Reply] = []
    for _ in range(count):
        item, start = parse(buffer, start, depth)
        items.append(item)
    return items, start


def _int(line: bytes) -> int:
    try:
        return int(line)
    except ValueError:
        raise InvalidResponse(f"not an integer: {line[:40]!r}") from None
