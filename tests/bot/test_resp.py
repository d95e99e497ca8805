"""RESP as the intake writes and reads it: commands packed without copying the bodies,
replies parsed whole or reported incomplete, never misread."""

from __future__ import annotations

import pytest
from redis.exceptions import InvalidResponse, ResponseError

from bot.resp import MAX_DEPTH, MAX_LINE, Incomplete, pack, parse

INTEGERS = b"*3\r\n:1\r\n:0\r\n:1\r\n"


def test_pack_writes_resp_with_long_arguments_as_their_own_buffers() -> None:
    long = b"y" * 5000
    parts = pack([b"SET", b"k", long])
    assert b"".join(parts) == b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000\r\n" + long + b"\r\n"
    assert any(part is long for part in parts)  # not copied


def test_the_intakes_reply_is_its_integers_and_where_it_ends() -> None:
    assert parse(INTEGERS + b":7\r\n") == ([1, 0, 1], len(INTEGERS))


@pytest.mark.parametrize(
    ("raw", "reply"),
    [
        (b"+OK\r\n", b"OK"),
        (b"$5\r\nhe\r\no\r\n", b"he\r\no"),  # a bulk string is read by its length
        (b"$-1\r\n", None),
        (b"_\r\n", None),  # RESP3's null
        (b"*-1\r\n", None),
        (b"*0\r\n", []),
        (b"*2\r\n*1\r\n:-3\r\n$0\r\n\r\n", [[-3], b""]),
        (b"*1\r\n" * (MAX_DEPTH - 1) + b"*0\r\n", [[[[[[[[]]]]]]]]),
    ],
)
def test_plain_replies(raw: bytes, reply: object) -> None:
    assert parse(bytearray(raw)) == (reply, len(raw))


def test_an_error_reply_is_returned_as_a_response_error_inside_an_array_too() -> None:
    error, end = parse(b"-ERR unknown command\r\n")
    assert isinstance(error, ResponseError) and str(error) == "ERR unknown command"
    assert end == 22
    items, _ = parse(b"*2\r\n:1\r\n-NOSCRIPT no\r\n")
    assert isinstance(items, list) and items[0] == 1 and isinstance(items[1], ResponseError)


@pytest.mark.parametrize("raw", [INTEGERS, b"$5\r\nhe\r\no\r\n", b"-ERR x\r\n"])
def test_every_cut_short_reply_is_incomplete(raw: bytes) -> None:
    for cut in range(len(raw)):
        with pytest.raises(Incomplete):
            parse(raw[:cut])


@pytest.mark.parametrize(
    "raw",
    [
        b"%1\r\n",
        b":one\r\n",
        b"*x\r\n",
        b"$1O\r\nab\r\n",
        b"$1\r\nab\r\n",  # longer than its length says
        b"*1\r\n" * (MAX_DEPTH + 1) + b":1\r\n",
    ],
)
def test_bytes_that_are_no_reply_are_refused(raw: bytes) -> None:
    with pytest.raises(InvalidResponse):
        parse(raw)


def test_a_line_that_never_ends_is_refused_not_waited_for() -> None:
    with pytest.raises(Incomplete):
        parse(b"+" + b"a" * (MAX_LINE - 1))
    with pytest.raises(InvalidResponse):
        parse(b"+" + b"a" * MAX_LINE)
