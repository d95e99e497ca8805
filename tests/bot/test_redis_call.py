"""The intake's own connection: redis-py connects it, our protocol writes and reads it.

Against real Redis, and against a small server speaking RESP that misbehaves the ways a
network or a broken server does: silence, bytes that are not a reply, a closed socket.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
import uvloop
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from redis.asyncio import Redis as AsyncRedis
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.redis_call import ATTEMPTS, MAX_REPLY, SoleConnection
from bot.resp import Incomplete, parse

# What the fake server does when it gets a command that is not part of redis-py's
# handshake, by the number of the connection (0 first): answer, say nothing, write
# bytes that are no reply, or close.
Behaviour = Callable[[int], bytes | None]


class FakeRedis:
    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.connections = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        number, self.connections = self.connections, self.connections + 1
        buffer = b""
        while chunk := await reader.read(65536):
            buffer += chunk
            while True:
                try:
                    command, end = parse(buffer)
                except Incomplete:
                    break
                buffer = buffer[end:]
                assert isinstance(command, list)
                if command[0].upper() in (b"CLIENT", b"HELLO", b"SELECT", b"PING"):
                    writer.write(b"+OK\r\n")
                    continue
                answer = self.behaviour(number)
                if answer == b"close":
                    writer.close()
                    return
                if answer is not None:
                    writer.write(answer)
        writer.close()


async def started(behaviour: Behaviour) -> tuple[FakeRedis, asyncio.Server, str]:
    handler = FakeRedis(behaviour)
    server = await asyncio.start_server(handler.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return handler, server, f"redis://127.0.0.1:{port}/0"


async def test_replies_and_error_replies_from_real_redis(redis_url: str) -> None:
    client = AsyncRedis.from_url(redis_url)
    sole = SoleConnection(client)
    try:
        assert await sole.call([b"SET", b"sole:k", b"v" * 3000]) == b"OK"
        assert await sole.call([b"GET", b"sole:k"]) == b"v" * 3000
        first = await sole.call([b"CLIENT", b"ID"])
        with pytest.raises(ResponseError, match="unknown command"):
            await sole.call([b"NOSUCHCOMMAND"])
        assert await sole.call([b"CLIENT", b"ID"]) == first  # the same connection goes on
    finally:
        await client.aclose()


async def test_a_connection_killed_by_redis_is_made_again(
    redis_url: str, redis_client: redis.Redis
) -> None:
    client = AsyncRedis.from_url(redis_url)
    sole = SoleConnection(client)
    try:
        first = await sole.call([b"CLIENT", b"ID"])
        redis_client.client_kill_filter(_id=first)
        second = await sole.call([b"CLIENT", b"ID"])
        assert isinstance(second, int) and second != first
    finally:
        await client.aclose()


async def test_closing_the_client_closes_the_connection_at_once(
    redis_url: str, redis_client: redis.Redis
) -> None:
    client = AsyncRedis.from_url(redis_url)  # no timeouts: a hang here would be forever
    sole = SoleConnection(client)
    ours = await sole.call([b"CLIENT", b"ID"])
    await asyncio.wait_for(client.aclose(), 2.0)
    deadline = time.monotonic() + 2.0
    while any(c["id"] == str(ours) for c in redis_client.client_list()):
        assert time.monotonic() < deadline, "the connection outlived its client"
        await asyncio.sleep(0.01)


async def test_a_silent_redis_times_out_each_attempt_on_a_new_connection() -> None:
    handler, server, url = await started(lambda number: None)
    client = AsyncRedis.from_url(url, socket_timeout=0.2)
    started_at = time.monotonic()
    try:
        with pytest.raises(RedisTimeoutError):
            await SoleConnection(client).call([b"EVAL", b"return 1", b"0"])
    finally:
        await client.aclose()
        server.close()
    assert handler.connections == ATTEMPTS
    assert 3 * 0.2 <= time.monotonic() - started_at < 2.0


@pytest.mark.parametrize(
    "bad",
    [
        b"%2\r\n",  # not a reply type
        b":1\r\n:1\r\n",  # a reply nobody asked for after the one asked for
        b"$99999999\r\n" + b"x" * (MAX_REPLY + 1),  # a reply past any the intake gets
        b"close",
    ],
)
async def test_a_broken_connection_is_dropped_and_the_command_sent_again(bad: bytes) -> None:
    handler, server, url = await started(lambda number: bad if number == 0 else b":7\r\n")
    client = AsyncRedis.from_url(url, socket_timeout=5.0)
    sole = SoleConnection(client)
    started_at = time.monotonic()
    try:
        reply = await sole.call([b"EVAL", b"return 7", b"0"])
        if bad.startswith(b":1"):  # the first reply was whole: the extra bytes break the next
            assert reply == 1
            reply = await sole.call([b"EVAL", b"return 7", b"0"])
        assert reply == 7
    finally:
        await client.aclose()
        server.close()
    assert handler.connections == 2
    assert time.monotonic() - started_at < 2.5  # found out at once, not by the timeout


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .sign(key, hashes.SHA256())
    )
    cert, key_file = directory / "cert.pem", directory / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key_file


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_tls_connection_is_taken_over_too(tmp_path: Path, loop: str) -> None:
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    async def scenario() -> tuple[object, int]:
        handler = FakeRedis(lambda number: b"*2\r\n:1\r\n:0\r\n")
        server = await asyncio.start_server(handler.serve, "127.0.0.1", 0, ssl=context)
        port = server.sockets[0].getsockname()[1]
        client = AsyncRedis.from_url(
            f"rediss://127.0.0.1:{port}/0", ssl_ca_certs=str(cert), socket_timeout=2.0
        )
        sole = SoleConnection(client)
        try:
            replies = [await sole.call([b"EVAL", b"return {1, 0}", b"0"]) for _ in range(3)]
        finally:
            await client.aclose()
            server.close()
        assert replies == [[1, 0]] * 3
        return replies[0], handler.connections

    runner = uvloop.run if loop == "uvloop" else asyncio.run
    assert runner(scenario()) == ([1, 0], 1)
